package auth

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestSecretNeverPersisted greps the store bytes for every form of the
// secrets it issued.
func TestSecretNeverPersisted(t *testing.T) {
	s, _ := newTestStore(t)
	var printed []string
	for i := 0; i < 4; i++ {
		_, sec := mustCreate(t, s, fmt.Sprintf("agent:%d", i), "p", []string{"fs.read"}, time.Hour)
		printed = append(printed, sec)
	}
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range printed {
		raw, ok := parseSecret(sec)
		if !ok {
			t.Fatalf("issued secret %q does not parse", sec)
		}
		for name, form := range map[string][]byte{
			"printed":   []byte(sec),
			"base64url": []byte(sec[len(SecretPrefix):]),
			"base64":    []byte(base64.StdEncoding.EncodeToString(raw)),
			"hex":       []byte(hex.EncodeToString(raw)),
			"raw":       raw,
			"raw half":  raw[:16],
		} {
			if bytes.Contains(data, form) {
				t.Errorf("store contains the %s form of a secret", name)
			}
		}
		if _, err := s.Validate(sec); err != nil {
			t.Errorf("issued secret does not validate: %v", err)
		}
	}
}

func TestFileModes(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b")
	s := Open(StorePath(dir))
	mustCreate(t, s, "agent:a", "p", nil, 0)

	for _, c := range []struct {
		path string
		want fs.FileMode
	}{
		{filepath.Join(root, "a"), 0o700},
		{dir, 0o700},
		{s.Path(), 0o600},
		{s.Path() + ".lock", 0o600},
	} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != c.want {
			t.Errorf("%s has mode %o; want %o", c.path, got, c.want)
		}
	}

	// A loose store is tightened by the next write and by reading.
	if err := os.Chmod(s.Path(), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "agent:b", "p", nil, 0)
	if fi, _ := os.Stat(s.Path()); fi.Mode().Perm() != 0o600 {
		t.Errorf("store after a write has mode %o; want 600", fi.Mode().Perm())
	}
	if err := os.Chmod(s.Path(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(s.Path()); fi.Mode().Perm() != 0o600 {
		t.Errorf("store after a read has mode %o; want 600", fi.Mode().Perm())
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != StoreFile && e.Name() != StoreFile+".lock" {
			t.Errorf("stray file %s in the state dir", e.Name())
		}
	}
}

// TestConcurrentCreators runs writers with separate Store values (and so
// separate lock-file opens) against one file; no token may be lost.
func TestConcurrentCreators(t *testing.T) {
	path := filepath.Join(t.TempDir(), StoreFile)
	const writers, each = 12, 5
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		secrets = map[string]string{}
	)
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := Open(path)
			for i := 0; i < each; i++ {
				id, sec, err := s.Create(fmt.Sprintf("agent:%d", w), "p", nil, 0)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				secrets[id] = sec
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Create: %v", err)
	}
	s := Open(path)
	toks, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(toks) != writers*each || len(secrets) != writers*each {
		t.Fatalf("store holds %d tokens, %d created; want %d", len(toks), len(secrets), writers*each)
	}
	for id, sec := range secrets {
		tok, err := s.Validate(sec)
		if err != nil || tok.ID != id {
			t.Errorf("secret of %s: %v, %v", id, tok, err)
		}
	}
}

// TestLiveReload: a long-lived Store sees another process's create and
// revoke within one second.
func TestLiveReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), StoreFile)
	kernel := Open(path)
	cli := Open(path)
	if err := kernel.Check(); err != nil {
		t.Fatal(err)
	}

	id, secret := mustCreate(t, cli, "agent:late", "p", nil, 0)
	if d, ok := eventually(time.Second, func() bool { _, err := kernel.Validate(secret); return err == nil }); !ok {
		t.Fatalf("created token not accepted after %v", d)
	}
	if err := cli.Revoke(id); err != nil {
		t.Fatal(err)
	}
	if d, ok := eventually(time.Second, func() bool {
		_, err := kernel.Validate(secret)
		return errors.Is(err, ErrTokenRevoked)
	}); !ok {
		t.Fatalf("revoked token still accepted after %v", d)
	}
}

// TestCorruptStoreFailsClosed: a store that stops decoding rejects every
// secret, refuses writes without touching the file, and recovers when
// repaired.
func TestCorruptStoreFailsClosed(t *testing.T) {
	s, _ := newTestStore(t)
	_, secret := mustCreate(t, s, "agent:a", "p", nil, 0)
	if _, err := s.Validate(secret); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{
		[]byte("{not json"),
		good[:len(good)/2],
		append(bytes.Clone(good), []byte("{}")...),
		[]byte(`{"version":2,"key":"","tokens":[]}`),
		[]byte(`[]`),
	} {
		// Rewrite in place, as an editor might, rather than by rename.
		if err := os.WriteFile(s.Path(), bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if d, ok := eventually(time.Second, func() bool {
			_, err := s.Validate(secret)
			return errors.Is(err, ErrStoreUnavailable)
		}); !ok {
			t.Fatalf("corrupt store %q still validates after %v", bad, d)
		}
		if _, err := s.List(); !errors.Is(err, ErrStoreUnavailable) {
			t.Errorf("List on a corrupt store = %v; want ErrStoreUnavailable", err)
		}
		if _, _, err := s.Create("agent:b", "p", nil, 0); !errors.Is(err, ErrStoreUnavailable) {
			t.Errorf("Create on a corrupt store = %v; want ErrStoreUnavailable", err)
		}
		if now, _ := os.ReadFile(s.Path()); !bytes.Equal(now, bad) {
			t.Errorf("a failed write changed the corrupt store")
		}
		if err := os.WriteFile(s.Path(), good, 0o600); err != nil {
			t.Fatal(err)
		}
		if d, ok := eventually(time.Second, func() bool { _, err := s.Validate(secret); return err == nil }); !ok {
			t.Fatalf("repaired store not accepted after %v", d)
		}
	}

	// An unreadable store (here: a directory in its place) fails closed too.
	if err := os.Rename(s.Path(), s.Path()+".bak"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(s.Path(), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Validate(secret); !errors.Is(err, ErrStoreUnavailable) {
		t.Errorf("Validate with a directory as the store = %v; want ErrStoreUnavailable", err)
	}
	if err := s.Check(); !errors.Is(err, ErrStoreUnavailable) {
		t.Errorf("Check = %v; want ErrStoreUnavailable", err)
	}
	os.Remove(s.Path())
	if err := os.Rename(s.Path()+".bak", s.Path()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Validate(secret); err != nil {
		t.Errorf("restored store: %v", err)
	}
}
