package main

import (
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/kernel"
	"github.com/shoalgo/shoal/internal/memlimit"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/help.golden")

// fixedMemory is a machine with 8 GiB of physical memory, so that the
// golden help does not depend on the one the test runs on.
func fixedMemory() memlimit.Derived {
	return memlimit.Derive(memlimit.Facts{Physical: 8 << 30})
}

// helpFlagRef matches a flag as the help names it: at the start of an
// entry or in the synopsis and prose (--name, or -v).
var helpFlagRef = regexp.MustCompile(`(?:^|[\s\[(|])(--?[a-z][a-z-]*)`)

// TestHelpNamesEveryFlag: every flag shoal-kernel defines has one line in
// --help, and every flag --help names is one it defines, so the help
// cannot drift from the flag set.
func TestHelpNamesEveryFlag(t *testing.T) {
	fs := newFlagSet(&options{limits: kernel.DefaultLimits()})
	defined := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { defined[f.Name] = true })

	listed := map[string]bool{}
	for _, g := range helpGroups {
		for _, e := range g.entries {
			if listed[e.name] {
				t.Errorf("--%s is listed twice", e.name)
			}
			listed[e.name] = true
			if !defined[e.name] {
				t.Errorf("help lists --%s, which is not a flag", e.name)
			}
		}
	}
	for name := range defined {
		if !listed[name] {
			t.Errorf("flag --%s has no line in --help", name)
		}
	}

	var b strings.Builder
	printHelp(&b, fs, fixedMemory())
	text := b.String()
	for _, m := range helpFlagRef.FindAllStringSubmatch(text, -1) {
		name := strings.TrimLeft(m[1], "-")
		// --help, and shoal's --kernel in the prose on connecting.
		if name != "help" && name != "kernel" && !defined[name] {
			t.Errorf("help text names %s, which is not a flag", m[1])
		}
	}
	for name := range defined {
		opt := "--" + name
		if len(name) == 1 {
			opt = "-" + name
		}
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(opt) + `[ \n]`).MatchString(text) {
			t.Errorf("help text has no line starting %s", opt)
		}
	}
}

// TestHelpPlaceholders: a line's placeholder says what its flag takes.
func TestHelpPlaceholders(t *testing.T) {
	for _, g := range helpGroups {
		for _, e := range g.entries {
			fs := newFlagSet(&options{limits: kernel.DefaultLimits()})
			f := fs.Lookup(e.name)
			if f == nil {
				continue // TestHelpNamesEveryFlag reports it
			}
			accepts := func(v string) bool { return f.Value.Set(v) == nil }
			isBool := false
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok {
				isBool = b.IsBoolFlag()
			}
			switch e.arg {
			case "":
				if !isBool {
					t.Errorf("--%s takes a value, but its line shows none", e.name)
				}
			case "SIZE":
				if !accepts("3KiB") || !accepts("4096") {
					t.Errorf("--%s is shown as a SIZE but refuses 3KiB", e.name)
				}
			case "N":
				if accepts("3KiB") || !accepts("3") {
					t.Errorf("--%s is shown as a count N but is not one", e.name)
				}
			case "TIME":
				if !accepts("90s") || accepts("90") {
					t.Errorf("--%s is shown as a TIME but is not a duration", e.name)
				}
			case "PATH", "NAME", "DIR", "FILE":
				if isBool {
					t.Errorf("--%s is a switch, but its line shows %s", e.name, e.arg)
				}
			default:
				t.Errorf("--%s: unknown placeholder %q", e.name, e.arg)
			}
		}
	}
}

// TestHelpGolden: the help as a person reads it, on an 8 GiB machine.
func TestHelpGolden(t *testing.T) {
	var b strings.Builder
	printHelp(&b, newFlagSet(&options{limits: kernel.DefaultLimits()}), fixedMemory())
	const path = "testdata/help.golden"
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestHelpGolden -update writes it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("help differs from %s (-update rewrites it):\n%s", path, b.String())
	}
	for i, line := range strings.Split(b.String(), "\n") {
		if n := len([]rune(line)); n > 100 {
			t.Errorf("help line %d is %d columns wide: %q", i+1, n, line)
		}
	}
}

// TestHelpThroughBinary runs the built shoal-kernel as a person would:
// --help and -h print the grouped help on stdout and exit 0; an unknown
// flag prints one line saying so and the short synopsis on stderr and
// exits 2.
func TestHelpThroughBinary(t *testing.T) {
	bin := kernelBinary(t)
	for _, arg := range []string{"--help", "-h", "-help"} {
		cmd := exec.Command(bin, arg)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v; stderr %q", arg, err, stderr.String())
		}
		out := stdout.String()
		if stderr.Len() != 0 || !strings.HasPrefix(out, "usage: shoal-kernel ") {
			t.Errorf("%s: stdout %q, stderr %q", arg, out, stderr.String())
		}
		for _, g := range helpGroups {
			if !strings.Contains(out, "\n"+g.title+":") {
				t.Errorf("%s: no group %q", arg, g.title)
			}
		}
		// The memory defaults are this machine's, whatever its size.
		for _, want := range []string{`(?m)^  --max-conns N +1024 `, `(?m)^  --session-memory SIZE +[0-9.]+ [KMG]iB\* `, `(?m)^  --plan-ttl TIME +1h `} {
			if !regexp.MustCompile(want).MatchString(out) {
				t.Errorf("%s: help lacks a line matching %s", arg, want)
			}
		}
		if strings.Contains(out, "Usage of") {
			t.Errorf("%s: the flag package's own dump is shown", arg)
		}
	}
	for _, tc := range []struct{ args, want []string }{
		{[]string{"--bogus"}, []string{"shoal-kernel: unknown flag --bogus\n"}},
		{[]string{"--max-conns", "many"}, []string{"shoal-kernel: invalid value \"many\" for flag -max-conns"}},
		{[]string{"extra"}, []string{"shoal-kernel: unexpected argument \"extra\"\n"}},
	} {
		cmd := exec.Command(bin, tc.args...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 {
			t.Errorf("%v: %v, want exit status 2", tc.args, err)
		}
		got := stderr.String()
		for _, w := range append(tc.want, "\nusage: shoal-kernel ", "shoal-kernel --help") {
			if !strings.Contains(got, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, got, w)
			}
		}
		if n := strings.Count(got, "\n"); n > 5 || stdout.Len() != 0 {
			t.Errorf("%v: want a short usage on stderr only; stdout %q, stderr (%d lines) %q", tc.args, stdout.String(), n, got)
		}
	}
}
