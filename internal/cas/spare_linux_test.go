package cas

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRunSpares: with RunSpares running, a Put renames the spare into
// place (the blob is whole, mode 0600, the spare gone from the root), a
// new spare is made for the next Put, Sweep leaves the live spare alone,
// and when RunSpares ends it removes its spare.
func TestRunSpares(t *testing.T) {
	s := openFiles(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.RunSpares(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	waitSpare := func(not string) string {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if n := s.spareName(); n != "" && n != not {
				return n
			}
		}
		t.Fatal("no spare made")
		return ""
	}
	first := waitSpare("")
	data := []byte("a blob through the spare")
	h, err := s.Put(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("the spare %s is still in the root: %v", first, err)
	}
	got, _, err := s.Get(h, 0, 0)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get = %q, %v", got, err)
	}
	hx := h[len(Prefix):]
	if fi, err := os.Stat(s.path(hx)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("blob file %v, %v", fi, err)
	}
	second := waitSpare(first)
	if _, err := s.sweep(func(string) bool { return true }, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(second); err != nil {
		t.Errorf("Sweep removed the live spare: %v", err)
	}
	// Many Puts, each a new blob: every one whole.
	for i := range 50 {
		d := []byte(strings.Repeat("x", i+1))
		h, err := s.Put(d)
		if err != nil {
			t.Fatal(err)
		}
		if got, _, err := s.Get(h, 0, 0); err != nil || !bytes.Equal(got, d) {
			t.Fatalf("Put %d: Get = %q, %v", i, got, err)
		}
	}
	cancel()
	<-done
	ents, err := os.ReadDir(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			t.Errorf("temporary %s left in the root after RunSpares ended", e.Name())
		}
	}
}

// TestSweepRemovesStaleSpare: a spare a dead process left in the root is
// removed by Sweep once older than the grace.
func TestSweepRemovesStaleSpare(t *testing.T) {
	s := open(t)
	fd, name, err := createTemp(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(fd)
	if _, err := s.sweep(func(string) bool { return true }, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("stale spare %s not removed: %v", name, err)
	}
}
