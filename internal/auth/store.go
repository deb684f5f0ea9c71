package auth

import (
	"crypto/hmac"
	"fmt"
	"sync"
	"time"
)

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

// Validate returns the token whose secret is given, compared exactly (no
// white space is trimmed) and in constant time. It fails with
// ErrStoreUnavailable when the store cannot be read, ErrUnknownToken when
// the secret is malformed or unknown, or names a principal no token may
// have (then also ErrReservedPrincipal: a store edited by hand cannot mint
// the owner), and ErrTokenRevoked or ErrTokenExpired when it matches a
// token that is no longer valid.
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
	return s.usable(&snap.entries[match].tok)
}

// Lookup returns the token with the given id if it is still usable: the
// kernel calls it to re-check the tokens its connections attached with. It
// fails like Validate, with ErrUnknownID for an id no longer in the store.
func (s *Store) Lookup(id string) (*Token, error) {
	snap, err := s.current()
	if err != nil {
		return nil, err
	}
	for i := range snap.entries {
		if snap.entries[i].tok.ID == id {
			return s.usable(&snap.entries[i].tok)
		}
	}
	return nil, fmt.Errorf("%w: %s", ErrUnknownID, quote(id))
}

// usable returns a copy of t if it may be used now.
func (s *Store) usable(t *Token) (*Token, error) {
	if err := checkIdentity(t); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnknownToken, t.ID, err)
	}
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
		err = fmt.Errorf("%s: %w", s.path, err)
	}
	s.snap = nil
	s.err = fmt.Errorf("%w: %w", ErrStoreUnavailable, err)
}

// fileIdent identifies one version of the store file.
type fileIdent struct {
	exists   bool
	dev, ino uint64
	size     int64
	mtime    int64
	ctime    int64 // a chmod or chown changes it
}
