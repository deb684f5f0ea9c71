package main

import (
	"bytes"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestListHeaderOnlyOnATerminal: `list` on a terminal names its columns
// in a header and aligns them; into a pipe it prints exactly one
// tab-separated line per token, no header, as the contract says.
func TestListHeaderOnlyOnATerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are exercised on Linux")
	}
	bin := buildBinary(t)
	env := cleanEnv(t.TempDir())
	for _, p := range []string{"agent:a", "agent:bee"} {
		if r := runBin(t, bin, env, "create", p, "ci"); r.code != 0 {
			t.Fatalf("create %s: %+v", p, r)
		}
	}
	piped := runBin(t, bin, env, "list")
	lines := strings.Split(strings.TrimSuffix(piped.stdout, "\n"), "\n")
	if piped.code != 0 || len(lines) != 2 || strings.HasPrefix(piped.stdout, "ID") {
		t.Fatalf("piped list = %q (exit %d), want two lines and no header", piped.stdout, piped.code)
	}
	for _, l := range lines {
		if f := strings.Split(l, "\t"); len(f) != 6 || f[5] != "active" {
			t.Errorf("piped line %q: want 6 tab-separated fields ending in active", l)
		}
	}

	cmd := exec.Command(bin, "list")
	cmd.Env = env
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&out, tty); close(done) }()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("list on a terminal: %v", err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	seen := strings.Split(strings.TrimRight(strings.ReplaceAll(out.String(), "\r\n", "\n"), "\n"), "\n")
	if len(seen) != 3 || !strings.HasPrefix(seen[0], "ID") || !strings.Contains(seen[0], "PRINCIPAL") || strings.Contains(out.String(), "\t") {
		t.Fatalf("list on a terminal = %q, want a header and two aligned rows", out.String())
	}
	if col := strings.Index(seen[0], "PRINCIPAL"); !strings.HasPrefix(seen[1][col:], "agent:") || !strings.HasPrefix(seen[2][col:], "agent:") {
		t.Errorf("columns not aligned under the header:\n%s", out.String())
	}
}
