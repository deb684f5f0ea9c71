package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// options are the parsed arguments of one subcommand.
type options struct {
	pos      []string
	caps     []string
	ttl      int64
	hasTTL   bool
	stateDir string
	json     bool
}

// errHelp reports that -h or --help was given.
var errHelp = errors.New("help requested")

// parseArgs reads flags anywhere among the positional arguments; allowed
// lists the flag names this subcommand accepts. "--" ends flag parsing.
// Flags take one or two dashes, and values either "--f v" or "--f=v".
func parseArgs(args []string, allowed ...string) (*options, error) {
	o := &options{}
	ok := func(name string) bool {
		for _, a := range allowed {
			if a == name {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			o.pos = append(o.pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			o.pos = append(o.pos, a)
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		value, hasValue := "", false
		if k, v, found := strings.Cut(name, "="); found {
			name, value, hasValue = k, v, true
		}
		if name == "h" || name == "help" {
			return nil, errHelp
		}
		if !ok(name) {
			return nil, fmt.Errorf("unknown flag %s", quote(a))
		}
		if name == "json" {
			if hasValue {
				b, err := strconv.ParseBool(value)
				if err != nil {
					return nil, fmt.Errorf("--json takes no value, got %s", quote(value))
				}
				o.json = b
			} else {
				o.json = true
			}
			continue
		}
		if !hasValue {
			// A following flag is not taken as the value: "--cap --ttl 3"
			// is a mistake, not a cap named "--ttl".
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
				return nil, fmt.Errorf("--%s needs a value", name)
			}
			i++
			value = args[i]
		}
		switch name {
		case "cap":
			o.caps = append(o.caps, value)
		case "ttl":
			n, err := parseTTL(value)
			if err != nil {
				return nil, err
			}
			o.ttl, o.hasTTL = n, true
		case "state-dir":
			if value == "" {
				return nil, errors.New("--state-dir needs a non-empty value")
			}
			o.stateDir = value
		}
	}
	return o, nil
}

// maxTTL is the largest number of seconds a time.Duration holds.
const maxTTL = int64(math.MaxInt64 / time.Second)

func parseTTL(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("--ttl wants whole seconds, got %s", quote(s))
	}
	if n > maxTTL || n < -maxTTL {
		return 0, fmt.Errorf("--ttl %d is out of range (at most %d seconds)", n, maxTTL)
	}
	return n, nil
}

// usageError reports a usage problem and returns the usage exit status.
func usageError(stderr io.Writer, msg string) int {
	synopsis, _, _ := strings.Cut(usage, "\n\n")
	fmt.Fprintf(stderr, "shoal-token: %s\n%s\nRun 'shoal-token --help' for more.\n", msg, synopsis)
	return exitUsage
}

// failure reports an operational error and returns the failure status.
func failure(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "shoal-token: %s\n", strings.TrimPrefix(err.Error(), "auth: "))
	return exitFailure
}

func quote(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + "…"
	}
	return strconv.Quote(s)
}
