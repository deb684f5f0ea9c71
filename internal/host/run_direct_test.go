package host

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/contain"
)

// TestRunBothPipesFull checks that a child filling its stderr pipe before
// it writes stdout is drained, not deadlocked: both streams arrive whole.
func TestRunBothPipesFull(t *testing.T) {
	sh := prog(t, "sh")
	const n = 300_000 // several pipe buffers each
	res, err := NewOS(AllowAll).Run(context.Background(), &Spawn{
		Argv: []string{sh, "-c", "head -c 300000 /dev/zero >&2; head -c 300000 /dev/zero"},
		Env:  []string{"PATH=/usr/bin:/bin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != n || len(res.Stderr) != n || res.Status == nil || *res.Status != 0 {
		t.Fatalf("stdout %d bytes, stderr %d bytes, status %v", len(res.Stdout), len(res.Stderr), res.Status)
	}
}

// TestRunLeavesNoDescriptors checks that runs, failed ones included, close
// every descriptor they open (pipes, pidfds).
func TestRunLeavesNoDescriptors(t *testing.T) {
	tr, fl := prog(t, "true"), prog(t, "false")
	h := NewOS(AllowAll)
	ctx := context.Background()
	run := func() {
		for _, p := range []string{tr, fl} {
			if _, err := h.Run(ctx, &Spawn{Argv: []string{p}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := h.Run(ctx, &Spawn{Argv: []string{tr}, Dir: "/nonexistent-dir-for-test"}); err == nil {
			t.Fatal("run in a missing directory succeeded")
		}
	}
	run() // opens what is opened once (/dev/null)
	before := openFds(t)
	for range 20 {
		run()
	}
	if after := openFds(t); after != before {
		t.Errorf("%d descriptors open before, %d after 60 runs", before, after)
	}
}

// TestRunInScopeLeavesNoDescriptors: in a scope with cgroups, the
// descriptors a leaf keeps open (contain's leafFDs) are reused with it, so
// many runs (failed starts included) open no more than the first did, and
// closing the scope closes them all.
func TestRunInScopeLeavesNoDescriptors(t *testing.T) {
	tr, fl := prog(t, "true"), prog(t, "false")
	before := openFds(t)
	m := contain.New(contain.Config{Cgroups: true, Name: "shoal-hostfds"})
	t.Cleanup(m.Close)
	scope := m.NewScope()
	h := NewOS(AllowAll, WithProcesses(scope))
	ctx := context.Background()
	run := func() {
		for _, p := range []string{tr, fl} {
			if _, err := h.Run(ctx, &Spawn{Argv: []string{p}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := h.Run(ctx, &Spawn{Argv: []string{tr}, Dir: "/nonexistent-dir-for-test"}); err == nil {
			t.Fatal("run in a missing directory succeeded")
		}
	}
	run() // the scope's first leaf, and /dev/null
	warm := openFds(t)
	for range 20 {
		run()
	}
	if after := openFds(t); after != warm {
		t.Errorf("%d descriptors open after the first runs, %d after 60 more", warm, after)
	}
	scope.Close()
	m.Close()
	// What stays is what a run without a scope opens once (/dev/null).
	if after := openFds(t); after > before+1 {
		t.Errorf("%d descriptors open before the scope, %d after it closed", before, after)
	}
}

func openFds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// TestRunStartErrors checks that a program that cannot start reports why,
// as an error matching the fs error it is.
func TestRunStartErrors(t *testing.T) {
	dir := t.TempDir()
	noexec := dir + "/noexec"
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := NewOS(AllowAll)
	for _, tc := range []struct {
		argv []string
		dir  string
		want error
	}{
		{[]string{dir + "/missing"}, "", fs.ErrNotExist},
		{[]string{noexec}, "", fs.ErrPermission},
		{[]string{prog(t, "true")}, dir + "/nodir", fs.ErrNotExist},
	} {
		_, err := h.Run(context.Background(), &Spawn{Argv: tc.argv, Dir: tc.dir})
		if !errors.Is(err, tc.want) {
			t.Errorf("Run(%v in %q) = %v, want %v", tc.argv, tc.dir, err, tc.want)
		}
	}
}

// TestRunEnvLastWins checks that when a key repeats in Spawn.Env the child
// sees the last value, as the session's own lookups do.
func TestRunEnvLastWins(t *testing.T) {
	sh := prog(t, "sh")
	res, err := NewOS(AllowAll).Run(context.Background(), &Spawn{
		Argv: []string{sh, "-c", `printf '%s %s' "$A" "$B"`},
		Env:  []string{"A=1", "B=x", "A=2"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(res.Stdout)); got != "2 x" {
		t.Errorf("child saw %q, want %q", got, "2 x")
	}
}
