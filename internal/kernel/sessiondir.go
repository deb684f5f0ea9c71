package kernel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/policy"
)

// Where a session starts, and where its rm puts things.
//
// A session starts in the kernel's directory when its principal may read
// it (the owner always); otherwise in the first directory a read grant of
// its policy starts at that exists ("/work/**": /work), else in the home
// directory when that is readable, so a token principal's first `ls`
// works. A client may move it on attach (session.attach cwd).
//
// rm's trash is the kernel's own place for each principal,
// <state-dir>/trash/<digest of the principal>, made 0700 by the kernel:
// the session's environment (TMPDIR) cannot steer it, and the grants
// allow moving things into it without a grant the person wrote
// (policy.Grants.WithTrash), never reading them back.

// startDir is the directory a new session of grants g starts in.
func (s *Server) startDir(g *policy.Grants) string {
	readable := func(dir string) bool {
		if !g.Allows(host.FSRead, dir) {
			return false
		}
		fi, err := os.Stat(dir)
		return err == nil && fi.IsDir()
	}
	if g == nil || readable(s.cfg.Dir) {
		return s.cfg.Dir
	}
	for _, root := range g.ReadRoots() {
		if readable(root) {
			return root
		}
	}
	if home := envValue(s.cfg.Env, "HOME"); filepath.IsAbs(home) && readable(filepath.Clean(home)) {
		return filepath.Clean(home)
	}
	return s.cfg.Dir
}

// trashDir makes (once per session start; MkdirAll is idempotent) and
// returns principal's trash directory with its symlinks resolved, or ""
// when the kernel has no state directory or cannot make it (rm then uses
// the session's <TMPDIR>/shoal-trash, which its grants must allow).
func (s *Server) trashDir(principal string) string {
	if s.cfg.StateDir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(principal))
	dir := filepath.Join(s.cfg.StateDir, "trash", hex.EncodeToString(sum[:12]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		s.log.Warn("no trash directory for a principal: rm uses the session's TMPDIR", "principal", principal, "err", err)
		return ""
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || !filepath.IsAbs(real) {
		return ""
	}
	return filepath.Clean(real)
}

// enter moves the session to dir, as `cd` would through its gate, and
// records it as the session's directory.
func (s *session) enter(ctx context.Context, dir string) error {
	if err := s.interp.Enter(ctx, dir); err != nil {
		return err
	}
	d := s.interp.Dir()
	s.mu.Lock()
	s.dir, s.leashEnv = d, nil
	s.mu.Unlock()
	return nil
}
