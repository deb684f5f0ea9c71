package mcp

import (
	"context"
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"
)

// usageFlagRef matches a flag Usage names: --name, after white space or
// a bracket.
var usageFlagRef = regexp.MustCompile(`(?:^|[\s\[(|])--([a-z][a-z-]*)`)

// TestUsageNamesEveryFlag: every flag shoal-mcp defines is in Usage, and
// every flag Usage names is defined, so the help cannot drift from the
// flag set.
func TestUsageNamesEveryFlag(t *testing.T) {
	fs, _ := mainFlags()
	defined := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { defined[f.Name] = true })
	named := map[string]bool{}
	for _, m := range usageFlagRef.FindAllStringSubmatch(Usage, -1) {
		named[m[1]] = true
		if m[1] != "help" && !defined[m[1]] {
			t.Errorf("Usage names --%s, which is not a flag", m[1])
		}
	}
	for name := range defined {
		if !named[name] {
			t.Errorf("flag --%s is not in Usage", name)
		}
	}
}

// TestUsageErrors: --help prints Usage and exits 0; an unknown flag gets
// one line and the synopsis, and exit status 2.
func TestUsageErrors(t *testing.T) {
	var stderr strings.Builder
	if code := Main(context.Background(), []string{"--help"}, io.NopCloser(strings.NewReader("")), nopCloser{io.Discard}, &stderr); code != 0 || stderr.String() != Usage {
		t.Errorf("--help: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	code := Main(context.Background(), []string{"--bogus"}, io.NopCloser(strings.NewReader("")), nopCloser{io.Discard}, &stderr)
	got := stderr.String()
	if code != 2 || !strings.HasPrefix(got, "shoal-mcp: unknown flag --bogus\nusage: shoal-mcp ") || strings.Count(got, "\n") > 5 {
		t.Errorf("--bogus: exit %d, stderr %q", code, got)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
