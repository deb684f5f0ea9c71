package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/policy"
)

// commandFlags are the flags each command accepts; the usage text names
// them on the command's line (TestUsageNamesEveryFlag).
var commandFlags = map[string][]string{
	"create": {"cap", "ttl", "state-dir"},
	"list":   {"json", "state-dir"},
	"revoke": {"state-dir"},
}

// parse parses a subcommand's arguments, handling help and usage errors.
// A nil options means run should return code.
func parse(args []string, stdout, stderr io.Writer, minPos, maxPos int, allowed ...string) (o *options, code int) {
	o, err := parseArgs(args, allowed...)
	if errors.Is(err, errHelp) {
		io.WriteString(stdout, usage)
		return nil, exitOK
	}
	if err != nil {
		return nil, usageError(stderr, err.Error())
	}
	switch {
	case len(o.pos) < minPos:
		return nil, usageError(stderr, "missing argument")
	case len(o.pos) > maxPos:
		return nil, usageError(stderr, "unexpected argument "+quote(o.pos[maxPos]))
	}
	return o, exitOK
}

// openStore resolves the store path for the options and opens it.
func openStore(o *options, stderr io.Writer) (*auth.Store, int) {
	path, err := auth.ResolveStorePath(o.stateDir)
	if err != nil {
		return nil, failure(stderr, err)
	}
	return auth.Open(path), exitOK
}

func runCreate(args []string, stdout, stderr io.Writer, now func() time.Time) int {
	o, code := parse(args, stdout, stderr, 1, 2, commandFlags["create"]...)
	if o == nil {
		return code
	}
	if err := policy.ValidateCaps(o.caps); err != nil {
		return usageError(stderr, err.Error())
	}
	principal, profile := o.pos[0], "default"
	if len(o.pos) == 2 {
		profile = o.pos[1]
	}
	store, code := openStore(o, stderr)
	if store == nil {
		return code
	}
	var expires time.Time
	if o.hasTTL {
		expires = now().Add(time.Duration(o.ttl) * time.Second)
		if o.ttl <= 0 {
			fmt.Fprintf(stderr, "shoal-token: warning: --ttl %d makes a token that is already expired\n", o.ttl)
		}
	}
	id, secret, err := store.CreateUntil(principal, profile, o.caps, expires)
	if errors.Is(err, auth.ErrInvalid) {
		return usageError(stderr, strings.TrimPrefix(err.Error(), "auth: "))
	}
	if err != nil {
		return failure(stderr, err)
	}
	if _, err := fmt.Fprintln(stdout, secret); err != nil {
		return failure(stderr, fmt.Errorf("printing the secret: %w", err))
	}
	fmt.Fprintf(stderr, "created %s (secret shown once)\n", id)
	return exitOK
}

func runList(args []string, stdout, stderr io.Writer, now func() time.Time) int {
	o, code := parse(args, stdout, stderr, 0, 0, commandFlags["list"]...)
	if o == nil {
		return code
	}
	store, code := openStore(o, stderr)
	if store == nil {
		return code
	}
	toks, err := store.List()
	if err != nil {
		return failure(stderr, err)
	}
	t := now()
	if o.json {
		err = writeJSON(stdout, toks, t)
	} else {
		err = writeTable(stdout, toks, t, isTerminal(stdout))
	}
	if err != nil {
		return failure(stderr, err)
	}
	return exitOK
}

func runRevoke(args []string, stdout, stderr io.Writer) int {
	o, code := parse(args, stdout, stderr, 1, 1, commandFlags["revoke"]...)
	if o == nil {
		return code
	}
	store, code := openStore(o, stderr)
	if store == nil {
		return code
	}
	if err := store.Revoke(o.pos[0]); err != nil {
		return failure(stderr, err)
	}
	fmt.Fprintf(stderr, "revoked %s\n", o.pos[0])
	return exitOK
}

// writeTable prints one tab-separated line per token:
// ID PRINCIPAL PROFILE CAPS EXPIRES STATE, where CAPS is comma-separated
// ("-" for none), EXPIRES is RFC 3339 or "never", and STATE is active,
// expired or revoked. For a person (tty: stdout is a terminal) a header
// names the columns and they are aligned; a pipe gets exactly one line
// per token, as the contract says, so scripts need not skip a header.
func writeTable(w io.Writer, toks []auth.Token, now time.Time, tty bool) error {
	if tty {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		io.WriteString(tw, tableHeader)
		if err := writeTable(tw, toks, now, false); err != nil {
			return err
		}
		if len(toks) == 0 {
			io.WriteString(tw, "(no tokens)\n")
		}
		return tw.Flush()
	}
	var b strings.Builder
	for i := range toks {
		t := &toks[i]
		caps := "-"
		if len(t.Caps) > 0 {
			caps = strings.Join(t.Caps, ",")
		}
		expires := "never"
		if !t.Expires.IsZero() {
			expires = t.Expires.Format(time.RFC3339)
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Principal, t.Profile, caps, expires, t.State(now))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tableHeader names writeTable's columns on a terminal.
const tableHeader = "ID\tPRINCIPAL\tPROFILE\tCAPS\tEXPIRES\tSTATE\n"

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// listed is a token as `list --json` shows it.
type listed struct {
	ID        string     `json:"id"`
	Principal string     `json:"principal"`
	Profile   string     `json:"profile"`
	Caps      []string   `json:"caps"`
	Created   time.Time  `json:"created"`
	Expires   *time.Time `json:"expires,omitempty"`
	Revoked   bool       `json:"revoked"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	State     string     `json:"state"`
}

func writeJSON(w io.Writer, toks []auth.Token, now time.Time) error {
	out := make([]listed, len(toks))
	for i := range toks {
		t := &toks[i]
		l := listed{
			ID: t.ID, Principal: t.Principal, Profile: t.Profile, Caps: t.Caps,
			Created: t.Created, Revoked: t.Revoked, State: t.State(now),
		}
		if l.Caps == nil {
			l.Caps = []string{}
		}
		if !t.Expires.IsZero() {
			l.Expires = &t.Expires
		}
		if !t.RevokedAt.IsZero() {
			l.RevokedAt = &t.RevokedAt
		}
		out[i] = l
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
