package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// usageFlag matches a flag the usage names: --name after white space or
// a bracket.
var usageFlag = regexp.MustCompile(`(?:^|[\s\[(|])--([a-z][a-z-]*)`)

// TestUsageNamesEveryFlag: each command's line in the usage names exactly
// the flags the command accepts (commandFlags), every command has a
// line, and the prose names no flag no command has, so the help cannot
// drift from the flags.
func TestUsageNamesEveryFlag(t *testing.T) {
	synopsis, prose, _ := strings.Cut(usage, "\n\n")
	lines := map[string]string{}
	for _, line := range strings.Split(synopsis, "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "shoal-token" {
			t.Fatalf("synopsis line %q", line)
		}
		lines[f[1]] = line
	}
	every := map[string]bool{"help": true, "version": true}
	for cmd, flags := range commandFlags {
		line, ok := lines[cmd]
		if !ok {
			t.Errorf("command %s has no usage line", cmd)
			continue
		}
		var named []string
		for _, m := range usageFlag.FindAllStringSubmatch(line, -1) {
			named = append(named, m[1])
		}
		slices.Sort(named)
		want := slices.Sorted(slices.Values(flags))
		if !slices.Equal(named, want) {
			t.Errorf("usage line of %s names %v; it accepts %v", cmd, named, want)
		}
		for _, f := range flags {
			every[f] = true
		}
	}
	for cmd := range lines {
		if _, ok := commandFlags[cmd]; !ok && cmd != "--version" {
			t.Errorf("usage names a command %s that has no flags entry", cmd)
		}
	}
	if code, out, _ := runIn(t, "--version"); code != exitOK || !strings.HasPrefix(out, "shoal-token ") {
		t.Errorf("--version in the usage does not work: %d %q", code, out)
	}
	for _, m := range usageFlag.FindAllStringSubmatch(prose, -1) {
		if !every[m[1]] {
			t.Errorf("the usage's prose names --%s, which no command accepts", m[1])
		}
	}
}

// TestUsageErrorIsShort: a usage error prints what is wrong and the
// synopsis, not the whole help.
func TestUsageErrorIsShort(t *testing.T) {
	setupEnv(t)
	code, out, errs := runIn(t, "--bogus")
	if code != exitUsage || out != "" || !strings.HasPrefix(errs, "shoal-token: unknown command \"--bogus\"\nusage:\n  shoal-token create ") ||
		!strings.HasSuffix(errs, "Run 'shoal-token --help' for more.\n") || strings.Count(errs, "\n") > 8 {
		t.Errorf("--bogus: code %d, stdout %q, stderr %q", code, out, errs)
	}
}
