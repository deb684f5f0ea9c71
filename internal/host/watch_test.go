package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func needLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("filesystem notifications are exercised on Linux")
	}
}

// nextEvent waits for an event matching kind and path, failing after 5 s.
func nextEvent(t *testing.T, w Watcher, kind, path string) FSEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var seen []string
	for {
		e, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for %s %s: %v (saw %v)", kind, path, err, seen)
		}
		if e.Kind == kind && e.Path == path {
			return e
		}
		seen = append(seen, e.Kind+" "+e.Path)
	}
}

func TestWatchReportsChanges(t *testing.T) {
	needLinux(t)
	dir := t.TempDir()
	w, err := NewOS(AllowAll).Watch(context.Background(), dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	a := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(a, []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, w, "created", a)
	if err := os.WriteFile(a, []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, w, "modified", a)
	// A directory created after the watch started is followed too.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, w, "created", sub)
	b := filepath.Join(sub, "b.txt")
	if err := os.WriteFile(b, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, w, "created", b)
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, w, "removed", a)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Next(context.Background()); err == nil {
		t.Error("Next after Close returned no error")
	}
	_ = w.Close() // twice is fine
}

// TestWatchOverflowCoalesces makes more changes than the queue holds while
// nobody reads: the consumer gets LiveQueue events and then one coalesced
// event for the root, and memory never grew past the queue.
func TestWatchOverflowCoalesces(t *testing.T) {
	needLinux(t)
	dir := t.TempDir()
	w, err := NewOS(AllowAll).Watch(context.Background(), dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := 0; i < 3*LiveQueue; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fw := w.(*fsWatch)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		fw.mu.Lock()
		full, owed := len(fw.queue), fw.owed
		fw.mu.Unlock()
		if full == LiveQueue && owed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("queue %d, owed %v after 5s", full, owed)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i := 0; i < LiveQueue; i++ {
		e, err := w.Next(ctx)
		if err != nil || e.Coalesced {
			t.Fatalf("event %d = %+v, %v", i, e, err)
		}
	}
	e, err := w.Next(ctx)
	if err != nil || !e.Coalesced || e.Path != dir {
		t.Fatalf("after the queue: %+v, %v; want a coalesced event for %s", e, err, dir)
	}
}

func TestWatchAndTailAskTheGate(t *testing.T) {
	dir := t.TempDir()
	h := NewOS(DenyAll)
	if _, err := h.Watch(context.Background(), dir, false); !errors.Is(err, ErrDenied) {
		t.Errorf("Watch under deny-all: %v", err)
	}
	if _, err := h.Tail(context.Background(), filepath.Join(dir, "x"), false); !errors.Is(err, ErrDenied) {
		t.Errorf("Tail under deny-all: %v", err)
	}
	if _, err := NewOS(AllowAll).Watch(context.Background(), filepath.Join(dir, "missing"), false); err == nil {
		t.Error("Watch of a missing path succeeded")
	}
	if _, err := NewOS(AllowAll).Tail(context.Background(), dir, false); err == nil {
		t.Error("Tail of a directory succeeded")
	}
}

// nextLine waits for the next tail item, failing after 5 s.
func nextLine(t *testing.T, tl Tailer) TailItem {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	it, err := tl.Next(ctx)
	if err != nil {
		t.Fatalf("tail: %v", err)
	}
	return it
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestTailFollowsLines(t *testing.T) {
	needLinux(t)
	p := filepath.Join(t.TempDir(), "log")
	appendFile(t, p, "old\n")
	tl, err := NewOS(AllowAll).Tail(context.Background(), p, false)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	appendFile(t, p, "a\nb")
	if it := nextLine(t, tl); it.Line != "a" {
		t.Fatalf("first line %+v, want a (not the old line)", it)
	}
	appendFile(t, p, "c\r\n") // completes "bc"
	if it := nextLine(t, tl); it.Line != "bc" {
		t.Fatalf("completed line %+v, want bc", it)
	}
	// Truncated and rewritten: followed from the start again.
	if err := os.WriteFile(p, []byte("t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if it := nextLine(t, tl); it.Line != "t" {
		t.Fatalf("after truncation %+v, want t", it)
	}
	// Rotated: the old file renamed away, a new one created.
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	appendFile(t, p, "new\n")
	if it := nextLine(t, tl); it.Line != "new" {
		t.Fatalf("after rotation %+v, want new", it)
	}
}

// TestTailFromStartDrops reads a file of more lines than the queue from
// its start without consuming: the first LiveQueue lines, then one marker
// with the count of the rest.
func TestTailFromStartDrops(t *testing.T) {
	needLinux(t)
	p := filepath.Join(t.TempDir(), "log")
	var b strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	appendFile(t, p, b.String())
	tl, err := NewOS(AllowAll).Tail(context.Background(), p, true)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	for i := 0; i < LiveQueue; i++ {
		if it := nextLine(t, tl); it.Line != fmt.Sprintf("line %d", i) {
			t.Fatalf("item %d = %+v", i, it)
		}
	}
	if it := nextLine(t, tl); it.Dropped != 200-LiveQueue {
		t.Fatalf("after the queue: %+v, want a marker of %d dropped lines", it, 200-LiveQueue)
	}
	// Later lines flow again.
	appendFile(t, p, "more\n")
	if it := nextLine(t, tl); it.Line != "more" {
		t.Fatalf("after the marker: %+v", it)
	}
}

func TestGlobWatch(t *testing.T) {
	root, match, deep, err := GlobWatch("/w", "src/**/*.go", false)
	if err != nil || root != "/w/src" || !deep {
		t.Fatalf("root %q, deep %v, %v", root, deep, err)
	}
	if _, _, deep, _ := GlobWatch("/w", "logs/*.log", false); deep {
		t.Error("logs/*.log is not deep")
	}
	for p, want := range map[string]bool{
		"/w/src/a.go":         true,
		"/w/src/x/y/b.go":     true,
		"/w/src/a.txt":        false,
		"/w/src/.hid/c.go":    false,
		"/w/other/a.go":       false,
		"/w/src":              false,
		"/w/src/x/.hidden.go": false,
	} {
		if got := match(p); got != want {
			t.Errorf("match(%s) = %v, want %v", p, got, want)
		}
	}
	if _, _, _, err := GlobWatch("/w", "[", false); err == nil {
		t.Error("bad pattern accepted")
	}
}

// TestGlobWatchManyDoubleStars: repeated "**" segments collapse into one
// (matching stays linear in the path, where 40 of them would take
// exponential time), and the collapsed pattern matches the same paths.
func TestGlobWatchManyDoubleStars(t *testing.T) {
	p, err := parsePattern(strings.Repeat("**/", 40) + "z")
	if err != nil || len(p.segs) != 2 {
		t.Fatalf("segments %q, %v; want [** z]", p.segs, err)
	}
	_, match, _, err := GlobWatch("/w", strings.Repeat("**/", 40)+"z", false)
	if err != nil {
		t.Fatal(err)
	}
	if match("/w/" + strings.Repeat("d/", 60) + "y") {
		t.Error("matched a path without z")
	}
	if !match("/w/"+strings.Repeat("d/", 60)+"z") || !match("/w/z") {
		t.Error("did not match z at depth 60 and 0")
	}
}
