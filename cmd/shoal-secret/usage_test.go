package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestUsageFlags: the one flag the usage names besides --help works, and
// an unknown command says so before the usage, with exit status 2.
func TestUsageFlags(t *testing.T) {
	env := []string{"HOME=" + t.TempDir()}
	call := func(args ...string) (int, string, string) {
		var out, errb strings.Builder
		code := run(args, env, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	for _, m := range regexp.MustCompile(`(?:^|\s)(--[a-z][a-z-]*)`).FindAllStringSubmatch(usage, -1) {
		if code, out, errs := call(m[1]); code != 0 || out == "" {
			t.Errorf("%s, named in the usage: exit %d, stdout %q, stderr %q", m[1], code, out, errs)
		}
	}
	if code, out, errs := call("--bogus"); code != 2 || out != "" || !strings.HasPrefix(errs, "shoal-secret: unknown command \"--bogus\"\nusage: ") {
		t.Errorf("--bogus: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
