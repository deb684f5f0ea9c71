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
	t.Setenv(SocketEnv, "")
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

	// $SHOAL_SOCKET comes before any discovery, for every session.
	t.Setenv(SocketEnv, filepath.Join(base, "chosen.sock"))
	if p := DefaultSocketPath("work"); p != filepath.Join(base, "chosen.sock") {
		t.Fatalf("with %s set: %q", SocketEnv, p)
	}
	t.Setenv(SocketEnv, "")

	// Unset variables are skipped.
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", "")
	if got := SocketCandidates("s"); len(got) != 1 || got[0] != filepath.Join("/tmp", uid, "shoal", "s.sock") {
		t.Fatalf("without env: %q", got)
	}
}

// TestSocketDiscoveryLoginRuntimeDir: with XDG_RUNTIME_DIR unset, the
// login runtime directory <run>/<uid> comes first when it is the user's
// own with mode 0700, and is skipped otherwise.
func TestSocketDiscoveryLoginRuntimeDir(t *testing.T) {
	run := t.TempDir()
	mine := filepath.Join(run, strconv.Itoa(os.Getuid()))
	env := func(k string) string { return map[string]string{"TMPDIR": "/tt"}[k] }
	uid := "shoal-" + strconv.Itoa(os.Getuid())
	if got := socketCandidates("w", env, run); got[0] != filepath.Join("/tt", uid, "shoal", "w.sock") {
		t.Fatalf("no login runtime dir: %q", got)
	}
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := socketCandidates("w", env, run); len(got) != 2 {
		t.Fatalf("a login runtime dir of mode 0755 was used: %q", got)
	}
	if err := os.Chmod(mine, 0o700); err != nil {
		t.Fatal(err)
	}
	got := socketCandidates("w", env, run)
	if len(got) != 3 || got[0] != filepath.Join(mine, "shoal", "w.sock") {
		t.Fatalf("with %s: %q", mine, got)
	}
	// XDG_RUNTIME_DIR, when set, wins.
	xenv := func(k string) string { return map[string]string{"XDG_RUNTIME_DIR": "/x"}[k] }
	if got := socketCandidates("w", xenv, run); got[0] != "/x/shoal/w.sock" || len(got) != 2 {
		t.Fatalf("with XDG_RUNTIME_DIR: %q", got)
	}
}
