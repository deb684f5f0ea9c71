package main

import (
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/shoalgo/shoal/internal/blake3"
)

// hostileRepo is a cloned repository that plants a git: a .reef.toml
// constraining git to anything and an executable node_modules/.bin/git
// that leaves a marker whenever it runs.
type hostileRepo struct {
	bin, root, repo, marker string
	env                     []string
	realGit                 string // "" when the PATH below has no git
}

func newHostileRepo(t *testing.T) *hostileRepo {
	t.Helper()
	h := &hostileRepo{bin: filepath.Join(t.TempDir(), "shoal")}
	if out, err := exec.Command("go", "build", "-o", h.bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	h.root, _ = filepath.EvalSymlinks(t.TempDir())
	h.repo = filepath.Join(h.root, "repo")
	h.marker = filepath.Join(h.root, "planted-ran")
	writeMode(t, filepath.Join(h.repo, ".reef.toml"), "[tools]\ngit = \"*\"\n", 0o644)
	writeMode(t, filepath.Join(h.repo, "node_modules", ".bin", "git"), "#!/bin/sh\ntouch "+h.marker+"\necho PLANTED\n", 0o755)
	path := "/usr/bin:/bin"
	h.env = []string{"PATH=" + path, "HOME=" + filepath.Join(h.root, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(h.root, "cfg"), "XDG_STATE_HOME=" + filepath.Join(h.root, "state")}
	for _, d := range filepath.SplitList(path) {
		if fi, err := os.Stat(filepath.Join(d, "git")); err == nil && fi.Mode()&0o111 != 0 {
			h.realGit = filepath.Join(d, "git")
			break
		}
	}
	return h
}

func writeMode(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// run runs the built shoal with args in dir.
func (h *hostileRepo) run(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(h.bin, args...)
	cmd.Dir, cmd.Env = dir, h.env
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// planted reports whether the planted git ran since the last call.
func (h *hostileRepo) planted(t *testing.T) bool {
	t.Helper()
	_, err := os.Stat(h.marker)
	_ = os.Remove(h.marker)
	return err == nil
}

// expectRealGit checks a `git --version` that must not have used the
// planted program: the real git ran (or none was found), no lock was
// written, and stderr carries the notice once.
func (h *hostileRepo) expectRealGit(t *testing.T, what, stdout, stderr string, code int, notice string) {
	t.Helper()
	if h.planted(t) || strings.Contains(stdout, "PLANTED") {
		t.Fatalf("%s: the planted git ran (stdout %q)", what, stdout)
	}
	if h.realGit != "" && (code != 0 || !strings.HasPrefix(stdout, "git version")) {
		t.Errorf("%s: the real git did not run: exit %d, stdout %q, stderr %q", what, code, stdout, stderr)
	}
	if h.realGit == "" && code == 0 {
		t.Errorf("%s: no git on PATH, yet exit 0 (stdout %q)", what, stdout)
	}
	if n := strings.Count(stderr, notice); n != 1 {
		t.Errorf("%s: notice %q appears %d times in stderr %q", what, notice, n, stderr)
	}
	if strings.Count(stderr, "\n") > 1 && h.realGit != "" {
		t.Errorf("%s: more than the one-line notice on stderr: %q", what, stderr)
	}
}

// TestHostileRepositoryIsInert is the finding, through the real binary: a
// plain `git --version` in a cloned repository that ships a .reef.toml
// and a node_modules/.bin/git runs the real git, prints one notice and
// writes nothing into the repository, until the person runs `shoal trust`
// there; then Reef uses it (reef lock keeps it trusted); a change to the
// manifest or the lock by anyone makes it inert again, and a lock naming
// an absolute path outside the project is refused even when trusted.
func TestHostileRepositoryIsInert(t *testing.T) {
	h := newHostileRepo(t)
	untrusted := h.repo + " has a .reef.toml that is not trusted; run 'shoal trust' to use it"
	changed := h.repo + ": its project files changed since it was trusted; run 'shoal trust' to use them again"

	o, e, code := h.run(t, h.repo, "-c", "git --version")
	h.expectRealGit(t, "untrusted", o, e, code, untrusted)
	if _, err := os.Stat(filepath.Join(h.repo, "reef.lock")); err == nil {
		t.Fatal("reef.lock was written into an untrusted repository")
	}
	// Nothing Reef does there writes or binds either.
	if _, e, code := h.run(t, h.repo, "-c", "reef lock"); code == 0 || !strings.Contains(e, untrusted) {
		t.Errorf("reef lock untrusted: exit %d, stderr %q", code, e)
	}
	if _, e, code := h.run(t, h.repo, "-c", `reef add "git@*"`); code == 0 || !strings.Contains(e, "reef_untrusted") {
		t.Errorf("reef add untrusted: exit %d, stderr %q", code, e)
	}
	if o, _, _ := h.run(t, h.repo, "-c", `(which -a git).where(r => r.provider == "npm-local").len()`); strings.TrimSpace(o) != "0" {
		t.Errorf("which -a lists the planted git: %q", o)
	}
	if _, err := os.Stat(filepath.Join(h.repo, "reef.lock")); err == nil || h.planted(t) {
		t.Fatal("a reef command wrote a lock or ran the planted git")
	}

	// The person trusts it: shoal trust shows the files and records them.
	o, e, code = h.run(t, h.repo, "trust")
	if code != 0 || !strings.Contains(o, "trusting "+h.repo) || !strings.Contains(o, "tools: git *") || !strings.Contains(o, "trusted "+h.repo) {
		t.Fatalf("shoal trust: exit %d, stdout %q, stderr %q", code, o, e)
	}
	if fi, err := os.Stat(filepath.Join(h.root, "state", "shoal", "trust.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("trust store: %v %v", fi, err)
	}
	if _, e, code := h.run(t, h.repo, "-c", "reef lock"); code != 0 || e != "" {
		t.Fatalf("reef lock trusted: exit %d, stderr %q", code, e)
	}
	o, e, code = h.run(t, h.repo, "-c", "git --version")
	if code != 0 || !strings.Contains(o, "PLANTED") || !h.planted(t) || e != "" {
		t.Fatalf("trusted and locked: exit %d, stdout %q, stderr %q", code, o, e)
	}
	if o, _, _ := h.run(t, h.repo, "trust", "--list"); !strings.Contains(o, "trusted  "+h.repo) || !strings.Contains(o, ".reef.toml, reef.lock") {
		t.Errorf("trust --list: %q", o)
	}

	// Anyone changes the manifest: inert again, with the changed notice.
	writeMode(t, filepath.Join(h.repo, ".reef.toml"), "[tools]\ngit = \"*\" # tweaked\n", 0o644)
	o, e, code = h.run(t, h.repo, "-c", "git --version")
	h.expectRealGit(t, "manifest changed", o, e, code, changed)
	if o, _, _ := h.run(t, h.repo, "trust", "--list"); !strings.Contains(o, "changed  "+h.repo) {
		t.Errorf("trust --list after the change: %q", o)
	}

	// Trusted again, then the lock changes: inert again.
	if _, _, code := h.run(t, h.repo, "trust"); code != 0 {
		t.Fatal("retrust failed")
	}
	lock, err := os.ReadFile(filepath.Join(h.repo, "reef.lock"))
	if err != nil {
		t.Fatal(err)
	}
	writeMode(t, filepath.Join(h.repo, "reef.lock"), string(lock)+"\n# edited\n", 0o644)
	o, e, code = h.run(t, h.repo, "-c", "git --version")
	h.expectRealGit(t, "lock changed", o, e, code, changed)

	// A lock naming a binary outside the project, digest and all, is
	// refused even in a trusted directory, and the binary never runs.
	evil := filepath.Join(h.root, "evil", "git")
	writeMode(t, evil, "#!/bin/sh\ntouch "+h.marker+"\necho EVIL\n", 0o755)
	data, _ := os.ReadFile(evil)
	sum := blake3.Sum256(data)
	for _, prov := range []string{"system", "npm-local"} {
		writeMode(t, filepath.Join(h.repo, "reef.lock"), "[tool.git]\nversion = \"9.9.9\"\nprovider = \""+prov+"\"\npath = \""+evil+
			"\"\nblake3 = \""+hex.EncodeToString(sum[:])+"\"\n", 0o644)
		if o, _, code := h.run(t, h.repo, "trust"); code != 0 || !strings.Contains(o, "git -> "+evil+" ("+prov+") REFUSED") {
			t.Fatalf("trust of the outside lock: exit %d, %q", code, o)
		}
		o, e, code = h.run(t, h.repo, "-c", "git --version")
		if code == 0 || !strings.Contains(e, "reef_lock_path") || strings.Contains(o, "EVIL") || h.planted(t) {
			t.Errorf("outside lock path (%s): exit %d, stdout %q, stderr %q", prov, code, o, e)
		}
	}

	// Revoked: inert, with the untrusted notice.
	if o, _, code := h.run(t, h.repo, "trust", "--revoke"); code != 0 || !strings.Contains(o, "revoked "+h.repo) {
		t.Fatalf("revoke: exit %d, %q", code, o)
	}
	o, e, code = h.run(t, h.repo, "-c", "git --version")
	h.expectRealGit(t, "revoked", o, e, code, untrusted)
}

// TestHostileRepositoryREPL is the finding as it was seen: the person's
// interactive shell (which locks a constrained tool on first use) in the
// cloned repository runs the real git, twice, says why once, and writes
// no reef.lock.
func TestHostileRepositoryREPL(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are exercised on Linux")
	}
	h := newHostileRepo(t)
	cmd := exec.Command(h.bin)
	cmd.Dir = h.repo
	cmd.Env = append(append([]string{}, h.env...), "TERM=xterm", "SHOAL_PROMPT_LEFT=shoal> ")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	out := &ptyOutput{}
	go func() { _, _ = io.Copy(out, tty) }()
	at := out.waitFor(t, 0, "shoal> ")
	for range 2 {
		if _, err := tty.Write([]byte("git --version\r")); err != nil {
			t.Fatal(err)
		}
		at = out.waitFor(t, at, "shoal> ")
	}
	if _, err := tty.Write([]byte("\"zz\" + \"done\"\r")); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, at, "zzdone")
	if _, err := tty.Write([]byte("exit\r")); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	shown := out.String()
	if h.planted(t) || strings.Contains(shown, "PLANTED") {
		t.Fatalf("the REPL ran the planted git:\n%s", shown)
	}
	if _, err := os.Stat(filepath.Join(h.repo, "reef.lock")); err == nil {
		t.Fatal("the REPL wrote reef.lock into the untrusted repository")
	}
	if n := strings.Count(shown, "has a .reef.toml that is not trusted"); n != 1 {
		t.Errorf("the notice shows %d times for two commands (want once):\n%s", n, shown)
	}
	if h.realGit != "" && !strings.Contains(shown, "git version") {
		t.Errorf("the real git did not run:\n%s", shown)
	}
}

// TestTrustShowsSafely: what shoal trust prints of a hostile lock is
// quoted, so escape sequences in it never reach the terminal raw; -h
// prints the usage once, on stdout; a bad flag is usage on stderr.
func TestTrustShowsSafely(t *testing.T) {
	h := newHostileRepo(t)
	writeMode(t, filepath.Join(h.repo, "reef.lock"), "[tool.git]\nprovider = \"system\"\npath = \"/usr/bin/git\\u001b[2K\\rhidden\"\n", 0o644)
	o, e, code := h.run(t, h.repo, "trust")
	if code != 0 || strings.ContainsRune(o, 0x1b) || !strings.Contains(o, `\x1b[2K\rhidden`) || !strings.Contains(o, "REFUSED") {
		t.Errorf("trust of a lock with escapes: exit %d, stdout %q, stderr %q", code, o, e)
	}
	o, e, code = h.run(t, h.repo, "trust", "-h")
	if code != 0 || strings.Count(o, "usage: shoal trust") != 1 || e != "" {
		t.Errorf("trust -h: exit %d, stdout %q, stderr %q", code, o, e)
	}
	if _, e, code := h.run(t, h.repo, "trust", "--bogus"); code != 2 || !strings.Contains(e, "usage: shoal trust") {
		t.Errorf("trust --bogus: exit %d, stderr %q", code, e)
	}
}
