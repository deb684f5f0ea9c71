package client

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestSocketDiscovery(t *testing.T) {
	base, err := os.MkdirTemp("", "sc")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	xdg := filepath.Join(base, "x")
	tmp := filepath.Join(base, "t")
	t.Setenv("XDG_RUNTIME_DIR", xdg)
	t.Setenv("TMPDIR", tmp)
	uid := "shoal-" + strconv.Itoa(os.Getuid())

	want := []string{
		filepath.Join(xdg, "shoal", "work.sock"),
		filepath.Join(tmp, uid, "shoal", "work.sock"),
		filepath.Join("/tmp", uid, "shoal", "work.sock"),
	}
	got := SocketCandidates("work")
	if len(got) != len(want) {
		t.Fatalf("candidates = %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("candidate %d = %q, want %q", i, got[i], want[i])
		}
	}
	if d := SocketCandidates("")[0]; d != filepath.Join(xdg, "shoal", "default.sock") {
		t.Fatalf("empty session candidate = %q", d)
	}

	// Nothing exists: the first candidate.
	if p := DefaultSocketPath("work"); p != want[0] {
		t.Fatalf("no socket: %q, want %q", p, want[0])
	}
	// A regular file is not a socket.
	if err := os.MkdirAll(filepath.Dir(want[0]), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(want[0], nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(want[1]), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", want[1])
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if p := DefaultSocketPath("work"); p != want[1] {
		t.Fatalf("socket in TMPDIR: %q, want %q", p, want[1])
	}

	// Unset variables are skipped.
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", "")
	if got := SocketCandidates("s"); len(got) != 1 || got[0] != filepath.Join("/tmp", uid, "shoal", "s.sock") {
		t.Fatalf("without env: %q", got)
	}
}
