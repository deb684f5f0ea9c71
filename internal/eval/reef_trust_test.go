package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/value"
)

// recTrust is a Trust and TrustRecorder over a map of directory → digest,
// counting the amends it was asked for.
type recTrust struct {
	mu     sync.Mutex
	dirs   map[string]string
	amends []string
}

func (r *recTrust) Check(dir, digest string) reef.TrustState {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.dirs[dir]
	switch {
	case !ok:
		return reef.Untrusted
	case d != digest:
		return reef.Changed
	}
	return reef.Trusted
}

func (r *recTrust) Stamp() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for k, v := range r.dirs {
		b.WriteString(k + "=" + v + ";")
	}
	return b.String()
}

func (r *recTrust) Amend(old string, now *reef.Project) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.amends = append(r.amends, now.Dir)
	if r.dirs[now.Dir] != old && old != reef.EmptyDigest {
		return os.ErrPermission
	}
	r.dirs[now.Dir] = now.Digest
	return nil
}

// TestReefTrustInTheSession: an untrusted project constrains nothing and
// is named once on stderr however often commands run (or once through
// TrustNotice); trusted, a REPL session's lock on first use is written
// and carried over by the recorder, so the directory stays trusted; the
// lock's bytes are the ones discovery checked; a lock the user's own
// [reef] leads to is never amended.
func TestReefTrustInTheSession(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	proj := filepath.Join(root, "proj")
	bin := filepath.Join(root, "bin")
	for _, d := range []string{proj, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "faketool"), []byte("#!/bin/sh\necho faketool 2.4.1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".reef.toml"), []byte("[tools]\nfaketool = \"*\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + filepath.Join(root, "home"), "XDG_CONFIG_HOME=" + filepath.Join(root, "cfg")}
	ctx := context.Background()
	tr := &recTrust{dirs: map[string]string{}}

	var stderr strings.Builder
	in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: proj, Env: env, Reef: true, REPL: true, Stderr: &stderr, ProjectTrust: tr})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if v, err := in.Eval(ctx, `(which faketool).scope`); err != nil || v != value.Str("ambient") {
			t.Fatalf("untrusted which = %v, %v", v, err)
		}
	}
	if n := strings.Count(stderr.String(), proj+" has a .reef.toml that is not trusted"); n != 1 {
		t.Errorf("notice %d times: %q", n, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(proj, "reef.lock")); err == nil {
		t.Fatal("a lock was written into the untrusted directory")
	}

	var told []reef.UntrustedDir
	in2, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: proj, Env: env, Reef: true, Stderr: &stderr, ProjectTrust: tr,
		TrustNotice: func(u reef.UntrustedDir) { told = append(told, u) }})
	if err != nil {
		t.Fatal(err)
	}
	before := stderr.Len()
	_, _ = in2.Eval(ctx, `which faketool; which faketool`)
	if len(told) != 1 || told[0].Dir != proj || told[0].State != reef.Untrusted || stderr.Len() != before {
		t.Errorf("TrustNotice: %+v, stderr grew by %d", told, stderr.Len()-before)
	}

	tr.mu.Lock()
	tr.dirs[proj] = reef.ReadProject(reefFS{ctx: ctx, h: host.NewOS(host.AllowAll)}, proj).Digest
	tr.mu.Unlock()
	v, err := in.Eval(ctx, `(faketool).out.trim()`)
	if err != nil || v != value.Str("faketool 2.4.1") {
		t.Fatalf("trusted REPL run = %v, %v (stderr %q)", v, err, stderr.String())
	}
	if len(tr.amends) != 1 || tr.amends[0] != proj {
		t.Errorf("amends = %v", tr.amends)
	}
	if v, err := in.Eval(ctx, `(which faketool).scope`); err != nil || v != value.Str("reef") {
		t.Errorf("after the carried-over lock: %v, %v (stderr %q)", v, err, stderr.String())
	}

	// The user's own [reef] and its lock beside shoal.toml: written, never
	// amended.
	cfg := filepath.Join(root, "cfg", "shoal")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "shoal.toml"), []byte("[reef.tools]\nfaketool = \"*\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in3, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: root, Env: env, Reef: true, Stderr: &stderr, ProjectTrust: tr, REPL: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in3.Eval(ctx, `faketool`); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cfg, "reef.lock")); err != nil || len(tr.amends) != 1 {
		t.Errorf("user lock: %v, amends %v", err, tr.amends)
	}
}
