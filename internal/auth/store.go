package auth

import (
	"crypto/hmac"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"
)

// refreshAfter bounds how long a cached snapshot is trusted without
// re-reading the file, even when its identity looks unchanged (inode reuse
// on a filesystem with coarse timestamps could otherwise hide a rewrite).
const refreshAfter = 500 * time.Millisecond

// digestEqual compares digests in constant time; a variable so tests can
// observe that every record is compared.
var digestEqual = hmac.Equal

// Store is a token store backed by one file. Its methods are safe for
// concurrent use, and other processes may change the file at any time.
type Store struct {
	path string
	now  func() time.Time // wall clock; replaced in tests

	mu       sync.RWMutex
	loaded   bool
	snap     *snapshot // nil when err != nil
	err      error     // why the store is unavailable
	ident    fileIdent
	loadedAt time.Time

	wmu sync.Mutex // serialises this process's writers ahead of the flock
}

// Open returns a store for the file at path. It does no I/O: a missing file
// is an empty store, and problems are reported by the methods that read.
func Open(path string) *Store {
	return &Store{path: path, now: time.Now}
}

// Path returns the store's file path.
func (s *Store) Path() string { return s.path }

// Check re-reads the store now and reports whether it is usable. A nil
// result means Validate can accept tokens; otherwise the error wraps
// ErrStoreUnavailable.
func (s *Store) Check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reloadLocked()
	return s.err
}

// Validate returns the token whose secret is given. It fails with
// ErrStoreUnavailable when the store cannot be read, ErrUnknownToken when
// the secret is malformed or unknown, and ErrTokenRevoked or ErrTokenExpired
// when it matches a token that is no longer valid.
func (s *Store) Validate(secret string) (*Token, error) {
	snap, err := s.current()
	if err != nil {
		return nil, err
	}
	raw, ok := parseSecret(secret)
	if !ok || snap.key == nil {
		return nil, ErrUnknownToken
	}
	d := digest(snap.key, raw)
	match := -1
	for i := range snap.entries {
		// Compare against every record so the time taken does not reveal
		// which one matched.
		if digestEqual(d, snap.entries[i].digest) && match < 0 {
			match = i
		}
	}
	if match < 0 {
		return nil, ErrUnknownToken
	}
	t := &snap.entries[match].tok
	if t.Revoked {
		return nil, fmt.Errorf("%w: %s", ErrTokenRevoked, t.ID)
	}
	if t.Expired(s.now()) {
		return nil, fmt.Errorf("%w: %s (at %s)", ErrTokenExpired, t.ID, t.Expires.Format(time.RFC3339))
	}
	return t.clone(), nil
}

// List returns every token in creation order, revoked and expired ones
// included.
func (s *Store) List() ([]Token, error) {
	snap, err := s.current()
	if err != nil {
		return nil, err
	}
	out := make([]Token, len(snap.entries))
	for i := range snap.entries {
		out[i] = *snap.entries[i].tok.clone()
	}
	return out, nil
}

// current returns an up-to-date snapshot, re-reading the file when its
// identity changed or the cached copy is stale.
func (s *Store) current() (*snapshot, error) {
	id, statErr := statIdent(s.path)
	s.mu.RLock()
	if s.fresh(id, statErr) {
		snap, err := s.snap, s.err
		s.mu.RUnlock()
		return snap, err
	}
	s.mu.RUnlock()

	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.fresh(id, statErr) {
		s.reloadLocked()
	}
	return s.snap, s.err
}

func (s *Store) fresh(id fileIdent, statErr error) bool {
	return s.loaded && statErr == nil && id == s.ident && time.Since(s.loadedAt) < refreshAfter
}

// invalidate makes the next read re-load the file.
func (s *Store) invalidate() {
	s.mu.Lock()
	s.loaded = false
	s.mu.Unlock()
}

// reloadLocked reads and decodes the file; s.mu must be held for writing.
func (s *Store) reloadLocked() {
	s.loaded, s.loadedAt = true, time.Now()
	data, id, err := readFile(s.path)
	s.ident = id
	if err == nil {
		var snap *snapshot
		if snap, err = decode(data); err == nil {
			s.snap, s.err = snap, nil
			return
		}
	}
	s.snap = nil
	s.err = fmt.Errorf("%w: %s: %v", ErrStoreUnavailable, s.path, err)
}

// fileIdent identifies one version of the store file.
type fileIdent struct {
	exists   bool
	dev, ino uint64
	size     int64
	mtime    int64
}

func identOf(fi fs.FileInfo) fileIdent {
	id := fileIdent{exists: true, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), uint64(st.Ino)
	}
	return id
}

// statIdent stats path; a missing file has the zero identity.
func statIdent(path string) (fileIdent, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileIdent{}, nil
	}
	if err != nil {
		return fileIdent{}, err
	}
	return identOf(fi), nil
}

// readFile reads the store and the identity of what was read. A missing
// file reads as empty. A store readable by group or others is tightened to
// 0600 (best effort).
func readFile(path string) ([]byte, fileIdent, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fileIdent{}, nil
	}
	if err != nil {
		return nil, fileIdent{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileIdent{}, err
	}
	if !fi.Mode().IsRegular() {
		return nil, identOf(fi), fmt.Errorf("not a regular file")
	}
	if fi.Mode().Perm()&0o077 != 0 {
		_ = f.Chmod(0o600)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxStoreSize+1))
	if err != nil {
		return nil, identOf(fi), err
	}
	if len(data) > maxStoreSize {
		return nil, identOf(fi), fmt.Errorf("larger than %d bytes", maxStoreSize)
	}
	return data, identOf(fi), nil
}
