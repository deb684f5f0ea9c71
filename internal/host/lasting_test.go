package host

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestBeforeLasting: the WithBeforeLasting hook (the standalone shoal
// takes its signals over there) runs before every start of a process (the
// program sees the file the hook made, so the hook ran before the fork),
// before every fs_write and fs_delete (the hook still sees the file
// system as it was), for a gated host too (the held operations), and for
// nothing that leaves nothing behind: reads, stats, the clock, the
// environment, a lookup.
func TestBeforeLasting(t *testing.T) {
	sh := prog(t, "sh")
	for _, gated := range []bool{false, true} {
		name := "allow-all"
		if gated {
			name = "gated"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(dir, "marker")
			var calls atomic.Int64
			var check func() // what the hook checks of the file system at its call
			var auth Authorizer = AllowAll
			if gated {
				auth = &recorder{}
			}
			h := newOS(auth, WithBeforeLasting(func() {
				calls.Add(1)
				if check != nil {
					check()
				}
			}))
			ctx := context.Background()
			// expect runs op and fails unless it called the hook want times.
			expect := func(what string, want int64, op func() error) {
				t.Helper()
				before := calls.Load()
				if err := op(); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if got := calls.Load() - before; got != want {
					t.Errorf("%s called the hook %d times, want %d", what, got, want)
				}
			}

			// Processes: the hook makes the marker, the program tests it.
			check = func() { _ = os.WriteFile(marker, nil, 0o600) }
			spawn := &Spawn{Argv: []string{sh, "-c", "test -e " + marker}, Dir: dir}
			for _, stdin := range []bool{false, true} { // the direct path and os/exec's
				_ = os.Remove(marker)
				s := *spawn
				if stdin {
					s.Stdin = strings.NewReader("")
				}
				expect("Run", 1, func() error {
					res, err := h.Run(ctx, &s)
					if err == nil && (res.Status == nil || *res.Status != 0) {
						err = errors.New("the program ran before the hook")
					}
					return err
				})
			}
			_ = os.Remove(marker)
			expect("StartAttached", 1, func() error {
				a, err := h.StartAttached(ctx, spawn, func(*exec.Cmd) {})
				if err != nil {
					return err
				}
				ws, err := a.Wait()
				if err == nil && ws.ExitStatus() != 0 {
					err = errors.New("the program ran before the hook")
				}
				return err
			})

			// The file system: the hook sees each path as it was.
			file := filepath.Join(dir, "f")
			check = func() {
				if _, err := os.Lstat(file); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the hook ran after %s was made", file)
				}
			}
			expect("WriteFile", 1, func() error { return h.WriteFile(ctx, file, []byte("x"), false) })
			check = nil
			expect("WriteFile (append)", 1, func() error { return h.WriteFile(ctx, file, []byte("y"), true) })
			expect("MkdirAll", 1, func() error { return h.MkdirAll(ctx, filepath.Join(dir, "d", "e")) })
			expect("Copy", 1, func() error { return h.Copy(ctx, file, filepath.Join(dir, "g"), false) })
			expect("Symlink", 1, func() error { return h.Symlink(ctx, "f", filepath.Join(dir, "l")) })
			expect("Link", 1, func() error { return h.Link(ctx, file, filepath.Join(dir, "h")) })
			expect("Chtimes", 1, func() error { return h.Chtimes(ctx, file, time.Now(), time.Now()) })
			expect("Rename", 2, func() error { return h.Rename(ctx, filepath.Join(dir, "g"), filepath.Join(dir, "g2")) })
			check = func() {
				if _, err := os.Lstat(file); err != nil {
					t.Errorf("the hook ran after %s was removed", file)
				}
			}
			expect("Remove", 1, func() error { return h.Remove(ctx, file, false) })
			check = nil

			// Nothing lasting: no call.
			expect("reads", 0, func() error {
				if _, err := h.ReadFile(ctx, filepath.Join(dir, "h")); err != nil {
					return err
				}
				if _, err := h.Stat(ctx, dir); err != nil {
					return err
				}
				if _, err := h.ReadDir(ctx, dir); err != nil {
					return err
				}
				if _, err := h.Glob(ctx, dir, "*", false); err != nil {
					return err
				}
				if _, err := h.LookPath(ctx, sh, nil); err != nil {
					return err
				}
				if _, err := h.Environ(ctx); err != nil {
					return err
				}
				_, err := h.Clock(ctx)
				return err
			})
		})
	}
}

// TestBeforeLastingNotForARefusal: a cancelled context starts nothing,
// and so calls no hook.
func TestBeforeLastingNotForARefusal(t *testing.T) {
	var calls atomic.Int64
	h := newOS(AllowAll, WithBeforeLasting(func() { calls.Add(1) }))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Run(ctx, &Spawn{Argv: []string{prog(t, "true")}}); err == nil {
		t.Fatal("Run with a cancelled context ran")
	}
	if err := h.WriteFile(ctx, filepath.Join(t.TempDir(), "f"), nil, false); err == nil {
		t.Fatal("WriteFile with a cancelled context wrote")
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the hook was called %d times for ops that were refused", n)
	}
}
