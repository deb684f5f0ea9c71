package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCloseLive: CloseLive ends every watch and tail a host has running
// and gives their slots back, as a closing session needs.
func TestCloseLive(t *testing.T) {
	ctx := context.Background()
	h := NewOS(AllowAll).(*OS)
	dir := t.TempDir()
	file := filepath.Join(dir, "log")
	if err := os.WriteFile(file, []byte("a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var watches []Watcher
	for len(watches) < MaxLive/2 {
		w, err := h.Watch(ctx, dir, false)
		if err != nil {
			t.Fatal(err)
		}
		watches = append(watches, w)
	}
	var tails []Tailer
	for len(watches)+len(tails) < MaxLive {
		tl, err := h.Tail(ctx, file, false)
		if err != nil {
			t.Fatal(err)
		}
		tails = append(tails, tl)
	}
	if _, err := h.Watch(ctx, dir, false); !errors.Is(err, ErrTooManyLive) {
		t.Fatalf("watch past MaxLive: %v", err)
	}
	h.CloseLive()
	wait, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for i, w := range watches {
		if _, err := w.Next(wait); err == nil || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("watch %d still open after CloseLive: %v", i, err)
		}
	}
	for i, tl := range tails {
		if _, err := tl.Next(wait); err == nil || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("tail %d still open after CloseLive: %v", i, err)
		}
	}
	if got := h.live.Load(); got != 0 {
		t.Errorf("%d live slots still taken", got)
	}
	w, err := h.Watch(ctx, dir, false)
	if err != nil {
		t.Fatalf("watch after CloseLive: %v", err)
	}
	w.Close()
	h.running.mu.Lock()
	left := len(h.running.m)
	h.running.mu.Unlock()
	if left != 0 {
		t.Errorf("%d closed streams still tracked", left)
	}
}
