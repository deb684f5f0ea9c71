package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestUsageErrors: --help prints the whole usage on stdout and exits 0; an
// unknown flag or a flag without its value is one line naming it, the
// short synopsis, and status 2, with nothing on stdout.
func TestUsageErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, strings.NewReader(""), &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "usage: shoal") || errb.Len() != 0 {
		t.Errorf("--help: status %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	for _, args := range [][]string{{"--bogus"}, {"-c"}} {
		out.Reset()
		errb.Reset()
		code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
		lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
		if code != 2 || out.Len() != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "shoal: ") || lines[1] != strings.TrimSuffix(shortUsage, "\n") {
			t.Errorf("%v: status %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
	}
}
