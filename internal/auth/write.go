package auth

import (
	"crypto/rand"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"
)

// errNoChange tells update that nothing needs writing.
var errNoChange = errors.New("no change")

// Create adds a token and returns its id and bearer secret; the secret is
// not stored and cannot be recovered later. A positive ttl sets an expiry
// that far from now, zero means the token never expires, and a negative
// ttl yields a token that is already expired.
func (s *Store) Create(principal, profile string, caps []string, ttl time.Duration) (id, secret string, err error) {
	var expires time.Time
	if ttl != 0 {
		expires = s.now().Add(ttl)
	}
	return s.CreateUntil(principal, profile, caps, expires)
}

// CreateUntil is Create with an absolute expiry; the zero time means none.
func (s *Store) CreateUntil(principal, profile string, caps []string, expires time.Time) (id, secret string, err error) {
	if err := CheckPrincipal(principal); err != nil {
		return "", "", err
	}
	if err := checkProfile(profile); err != nil {
		return "", "", err
	}
	for _, c := range caps {
		if err := checkCap(c); err != nil {
			return "", "", err
		}
	}
	raw, secret, err := newSecret()
	if err != nil {
		return "", "", fmt.Errorf("auth: generating a secret: %w", err)
	}
	err = s.update(func(snap *snapshot) error {
		for {
			if id, err = newID(); err != nil {
				return fmt.Errorf("generating an id: %w", err)
			}
			if !slices.ContainsFunc(snap.entries, func(e entry) bool { return e.tok.ID == id }) {
				break
			}
		}
		t := Token{
			ID:        id,
			Principal: principal,
			Profile:   profile,
			Caps:      append([]string{}, caps...),
			Created:   s.now().UTC(),
		}
		if !expires.IsZero() {
			t.Expires = expires.UTC()
		}
		snap.entries = append(snap.entries, entry{tok: t, digest: digest(snap.key, raw)})
		return nil
	})
	if err != nil {
		return "", "", err
	}
	return id, secret, nil
}

// Revoke marks the token with the given id revoked, keeping its record.
// Revoking a revoked token changes nothing. An unknown id is ErrUnknownID.
func (s *Store) Revoke(id string) error {
	return s.update(func(snap *snapshot) error {
		for i := range snap.entries {
			t := &snap.entries[i].tok
			if t.ID != id {
				continue
			}
			if t.Revoked {
				return errNoChange
			}
			t.Revoked, t.RevokedAt = true, s.now().UTC()
			return nil
		}
		return fmt.Errorf("%w: %s", ErrUnknownID, quote(id))
	})
}

// update applies fn to the current store under the store lock and writes
// the result atomically. A store that does not decode is left alone.
func (s *Store) update(fn func(*snapshot) error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	defer s.invalidate()

	dir, name := filepath.Dir(s.path), filepath.Base(s.path)
	if err := EnsureDir(dir); err != nil {
		return err
	}
	d, err := openDir(dir)
	if err != nil {
		return fmt.Errorf("auth: %w: %w", ErrStoreUnavailable, err)
	}
	defer d.close()
	unlock, err := d.lock(name + ".lock")
	if err != nil {
		return fmt.Errorf("auth: locking %s: %w", s.path, err)
	}
	defer unlock()

	data, _, err := d.read(name)
	if err != nil {
		return fmt.Errorf("auth: %w: %w", ErrStoreUnavailable, err)
	}
	snap, err := decode(data)
	if err != nil {
		return fmt.Errorf("auth: %w: %s: %v (fix or remove the file)", ErrStoreUnavailable, s.path, err)
	}
	if snap.key == nil {
		snap.key = make([]byte, keyLen)
		if _, err := rand.Read(snap.key); err != nil {
			return fmt.Errorf("auth: generating a store key: %w", err)
		}
	}
	if err := fn(snap); err != nil {
		if errors.Is(err, errNoChange) {
			return nil
		}
		return fmt.Errorf("auth: %w", err)
	}
	out, err := encode(snap)
	if err != nil {
		return fmt.Errorf("auth: encoding the store: %w", err)
	}
	if err := d.writeAtomic(name, out); err != nil {
		return fmt.Errorf("auth: writing %s: %w", s.path, err)
	}
	return nil
}
