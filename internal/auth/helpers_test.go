package auth

import (
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// clock is a settable fake wall clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// newTestStore opens a store in a fresh temp dir with a fake clock.
func newTestStore(t *testing.T) (*Store, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 7, 16, 9, 30, 0, 0, time.UTC)}
	s := Open(filepath.Join(t.TempDir(), "state", StoreFile))
	s.now = c.now
	return s, c
}

func mustCreate(t *testing.T, s *Store, principal, profile string, caps []string, ttl time.Duration) (string, string) {
	t.Helper()
	id, secret, err := s.Create(principal, profile, caps, ttl)
	if err != nil {
		t.Fatalf("Create(%q, %q): %v", principal, profile, err)
	}
	return id, secret
}

// eventually polls cond until it holds or limit passes, returning how long
// it took and whether it held.
func eventually(limit time.Duration, cond func() bool) (time.Duration, bool) {
	start := time.Now()
	for {
		if cond() {
			return time.Since(start), true
		}
		if time.Since(start) > limit {
			return time.Since(start), false
		}
		time.Sleep(10 * time.Millisecond)
	}
}
