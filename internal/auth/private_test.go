package auth

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// foreignUID is a uid no test process runs as.
const foreignUID = 54321

// TestHostileStore plants, in place of a working store, each thing an
// attacker (or an accident) could leave there. Every read fails closed with
// ErrStoreUnavailable and a message naming the problem, quickly (a FIFO
// must not hang it); every write is refused and changes nothing; and a
// symbolic link's target is neither read, written nor chmodded.
func TestHostileStore(t *testing.T) {
	root := os.Geteuid() == 0
	tests := []struct {
		name     string
		needRoot bool
		// plant changes the state dir holding a good store at path.
		plant func(t *testing.T, dir, path string)
		want  string // in the error message
	}{
		{"fifo", false, func(t *testing.T, dir, path string) {
			replace(t, path)
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "is a FIFO"},
		{"symlink to a good store", false, func(t *testing.T, dir, path string) {
			target := filepath.Join(t.TempDir(), "elsewhere.json")
			if err := os.Rename(path, target); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(target, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
		{"directory", false, func(t *testing.T, dir, path string) {
			replace(t, path)
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "is a directory"},
		{"group-writable store", false, func(t *testing.T, dir, path string) {
			chmod(t, path, 0o620)
		}, "writable by group or others"},
		{"world-writable store", false, func(t *testing.T, dir, path string) {
			chmod(t, path, 0o602)
		}, "writable by group or others"},
		{"group-writable directory", false, func(t *testing.T, dir, path string) {
			chmod(t, dir, 0o770)
		}, "directory " + "%DIR%" + " is writable by group or others"},
		{"world-writable sticky directory", false, func(t *testing.T, dir, path string) {
			chmod(t, dir, 0o1777)
		}, "writable by group or others"},
		{"oversized store", false, func(t *testing.T, dir, path string) {
			// 10 GB, sparse: it must be refused by its size, not read.
			if err := os.Truncate(path, 10<<30); err != nil {
				t.Fatal(err)
			}
		}, "over the 4194304-byte bound"},
		{"store owned by another user", true, func(t *testing.T, dir, path string) {
			chown(t, path, foreignUID)
		}, "owned by uid 54321"},
		{"directory owned by another user", true, func(t *testing.T, dir, path string) {
			chown(t, dir, foreignUID)
		}, "owned by uid 54321"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needRoot && !root {
				t.Skip("making a file another user owns needs root")
			}
			dir := filepath.Join(t.TempDir(), "state")
			s := Open(StorePath(dir))
			_, secret := mustCreate(t, s, "agent:a", "p", nil, 0)
			if _, err := s.Validate(secret); err != nil {
				t.Fatal(err)
			}
			tc.plant(t, dir, s.Path())
			t.Cleanup(func() { os.Chmod(dir, 0o700); os.Chown(dir, os.Geteuid(), -1) })
			before := snapshotDir(t, dir)

			fresh := Open(s.Path()) // a kernel starting now
			for name, st := range map[string]*Store{"running": s, "fresh": fresh} {
				err := within(t, 5*time.Second, func() error {
					var err error
					_, ok := eventually(2*time.Second, func() bool {
						_, err = st.Validate(secret)
						return errors.Is(err, ErrStoreUnavailable)
					})
					if !ok {
						return errors.New("still validates")
					}
					return err
				})
				want := strings.ReplaceAll(tc.want, "%DIR%", dir)
				if !errors.Is(err, ErrStoreUnavailable) || !strings.Contains(err.Error(), want) {
					t.Errorf("%s store: Validate = %v; want ErrStoreUnavailable mentioning %q", name, err, want)
				}
				if err := st.Check(); !errors.Is(err, ErrStoreUnavailable) {
					t.Errorf("%s store: Check = %v; want ErrStoreUnavailable", name, err)
				}
				if _, err := st.List(); !errors.Is(err, ErrStoreUnavailable) {
					t.Errorf("%s store: List = %v; want ErrStoreUnavailable", name, err)
				}
			}
			err := within(t, 5*time.Second, func() error {
				_, _, err := fresh.Create("agent:b", "p", nil, 0)
				return err
			})
			if !errors.Is(err, ErrStoreUnavailable) {
				t.Errorf("Create = %v; want ErrStoreUnavailable", err)
			}
			if err := within(t, 5*time.Second, func() error { return fresh.Revoke("00") }); !errors.Is(err, ErrStoreUnavailable) {
				t.Errorf("Revoke = %v; want ErrStoreUnavailable", err)
			}
			if after := snapshotDir(t, dir); after != before {
				t.Errorf("a refused write changed the state dir:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestSymlinkTargetUntouched: a store that is a symbolic link is not
// followed, so its target keeps its mode and contents through reads and
// refused writes.
func TestSymlinkTargetUntouched(t *testing.T) {
	dir := t.TempDir()
	s := Open(StorePath(dir))
	mustCreate(t, s, "agent:a", "p", nil, 0)
	target := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(target, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	replace(t, s.Path())
	if err := os.Symlink(target, s.Path()); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("Check = %v; want ErrNotPrivate", err)
	}
	if _, _, err := s.Create("agent:b", "p", nil, 0); !errors.Is(err, ErrStoreUnavailable) {
		t.Errorf("Create = %v; want ErrStoreUnavailable", err)
	}
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("symlink target was chmodded to %o", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(target); string(b) != "precious\n" {
		t.Errorf("symlink target was rewritten: %q", b)
	}
	if l, err := os.Readlink(s.Path()); err != nil || l != target {
		t.Errorf("the symlink itself changed: %q, %v", l, err)
	}
}

// TestSymlinkedLockRefused: the lock file is opened without following a
// link too, so a planted lock symlink cannot make a write create or
// truncate a file elsewhere.
func TestSymlinkedLockRefused(t *testing.T) {
	dir := t.TempDir()
	s := Open(StorePath(dir))
	mustCreate(t, s, "agent:a", "p", nil, 0)
	os.Remove(s.Path() + ".lock")
	target := filepath.Join(t.TempDir(), "made-by-lock")
	if err := os.Symlink(target, s.Path()+".lock"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Create("agent:b", "p", nil, 0); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Create with a symlinked lock = %v; want a symbolic link error", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock symlink's target was created: %v", err)
	}
}

// TestReadableStoreTightened: group- or world-readable (but not writable)
// is accepted and tightened, as before: the file holds digests only.
func TestReadableStoreTightened(t *testing.T) {
	dir := t.TempDir()
	s := Open(StorePath(dir))
	_, secret := mustCreate(t, s, "agent:a", "p", nil, 0)
	chmod(t, s.Path(), 0o644)
	s.invalidate()
	if _, err := s.Validate(secret); err != nil {
		t.Fatalf("a readable store: %v", err)
	}
	if fi, _ := os.Stat(s.Path()); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after a read is %o; want 600", fi.Mode().Perm())
	}
}

// TestStoreAtSizeBound: a store just under the bound is read; one byte
// over is refused.
func TestStoreAtSizeBound(t *testing.T) {
	dir := t.TempDir()
	s := Open(StorePath(dir))
	_, secret := mustCreate(t, s, "agent:a", "p", nil, 0)
	good, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	pad := func(n int) []byte { return append(bytes.Clone(good), bytes.Repeat([]byte{' '}, n-len(good))...) }
	if err := os.WriteFile(s.Path(), pad(MaxStoreBytes), 0o600); err != nil {
		t.Fatal(err)
	}
	s.invalidate()
	if _, err := s.Validate(secret); err != nil {
		t.Errorf("a store of exactly MaxStoreBytes: %v", err)
	}
	if err := os.WriteFile(s.Path(), pad(MaxStoreBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	s.invalidate()
	if _, err := s.Validate(secret); !errors.Is(err, ErrStoreUnavailable) {
		t.Errorf("a store one byte over: %v; want ErrStoreUnavailable", err)
	}
}

// replace moves the store aside so something else can take its name.
func replace(t *testing.T, path string) {
	t.Helper()
	if err := os.Rename(path, path+".orig"); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if mode&0o1000 != 0 {
		mode = mode&0o777 | os.ModeSticky
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func chown(t *testing.T, path string, uid int) {
	t.Helper()
	if err := os.Chown(path, uid, -1); err != nil {
		t.Fatal(err)
	}
}

// snapshotDir describes every entry of dir: name, mode, size, owner.
func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range ents {
		fi, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		b.WriteString(e.Name() + ":" + fi.Mode().String() + ":" + strconv.FormatInt(fi.Size(), 10) + ":" + strconv.Itoa(int(st.Uid)) + " ")
	}
	return b.String()
}

// within runs fn and fails the test if it does not return in time (a
// store open that blocks, as on a FIFO).
func within(t *testing.T, limit time.Duration, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("store operation still blocked after %v", limit)
		return nil
	}
}
