package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestRemoteLiveOutput runs the built shoal with --kernel, stdout piped:
// a program's first line is printed while the statement still runs (the
// program goes on only once the test, having read that line, creates its
// gate file), then its second and third lines (one on stderr, one on
// stdout, written at once), each once, and the statement's value after
// them.
func TestRemoteLiveOutput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's end-to-end tests run on Linux")
	}
	sock := startKernel(t)
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	script := filepath.Join(dir, "slow.sh")
	body := "echo first\nwhile [ ! -e '" + gate + "' ]; do sleep 0.05; done\necho second >&2\necho third\n"
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(binaries(t), "shoal"), "--kernel", sock, "--session", "live",
		"-c", "sh "+quoteShoal(script)+"; 40 + 2")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// The deadline only keeps a broken build from hanging the test: the
	// program cannot finish before the gate exists.
	next := func() string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdout ended; stderr %q", stderr.String())
			}
			return l
		case <-time.After(time.Minute):
			t.Fatalf("no line within a minute: output is not printed while the statement runs (stderr %q)", stderr.String())
		}
		return ""
	}
	if l := next(); l != "first" {
		t.Fatalf("first line %q, want first", l)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for l := range lines {
		rest = append(rest, l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("shoal: %v; stderr %q", err, stderr.String())
	}
	// second goes to stderr and third to stdout at once: through two
	// pipes their order is the kernel's reading, not the program's.
	if got := strings.Join(rest, "\n"); got != "second\nthird\n42" && got != "third\nsecond\n42" {
		t.Errorf("after the gate stdout held %q, want second and third (in either order), then 42, each once", got)
	}
}
