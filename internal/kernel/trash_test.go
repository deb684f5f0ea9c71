package kernel

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// trashFixture makes root/<owner>/<proc>/<name> files of size bytes each
// (written, so they take disk blocks), oldest first with a pause between
// them so their ctimes differ.
func trashFixture(t *testing.T, root, owner string, n, size int) []string {
	t.Helper()
	dir := filepath.Join(root, owner, "proc1")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i)
	}
	var paths []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("%d-f", i))
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		time.Sleep(5 * time.Millisecond) // distinct ctimes
	}
	return paths
}

func TestSweepTrashBounds(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	const kib = 1 << 10
	t.Run("per principal bytes, oldest first", func(t *testing.T) {
		root := t.TempDir()
		a := trashFixture(t, root, "a", 10, 64*kib)
		b := trashFixture(t, root, "b", 2, 64*kib)
		removed, _ := sweepTrash(root, Limits{TrashMaxBytes: 200 * kib}, time.Now(), quiet)
		if removed != 7 {
			t.Fatalf("removed %d items, want the 7 oldest of a's 10", removed)
		}
		for i, p := range a {
			if exists(p) != (i >= 7) {
				t.Errorf("a's item %d exists=%v", i, exists(p))
			}
		}
		for _, p := range b {
			if !exists(p) {
				t.Errorf("b's item %s went though b is within its bound", p)
			}
		}
	})
	t.Run("kernel-wide bytes", func(t *testing.T) {
		root := t.TempDir()
		a := trashFixture(t, root, "a", 3, 64*kib)
		b := trashFixture(t, root, "b", 3, 64*kib)
		removed, _ := sweepTrash(root, Limits{TrashTotalBytes: 260 * kib}, time.Now(), quiet)
		if removed != 2 || exists(a[0]) || exists(a[1]) || !exists(a[2]) || !exists(b[0]) {
			t.Fatalf("removed %d; want a's two oldest (the oldest of all) gone, the rest kept", removed)
		}
	})
	t.Run("age", func(t *testing.T) {
		root := t.TempDir()
		a := trashFixture(t, root, "a", 3, kib)
		removed, _ := sweepTrash(root, Limits{TrashMaxAge: time.Hour}, time.Now().Add(2*time.Hour), quiet)
		if removed != 3 || exists(a[0]) {
			t.Fatalf("removed %d, want all 3 items past the age", removed)
		}
		b := trashFixture(t, root, "b", 3, kib)
		if removed, _ := sweepTrash(root, Limits{TrashMaxAge: time.Hour}, time.Now(), quiet); removed != 0 || !exists(b[2]) {
			t.Fatalf("removed %d young items", removed)
		}
	})
	t.Run("entries, newest kept, hostile layout", func(t *testing.T) {
		root := t.TempDir()
		old := filepath.Join(root, "a", "proc1", "0-tree")
		for i := range 30 { // an old item of 31 entries
			if err := os.MkdirAll(filepath.Join(old, fmt.Sprintf("d%d", i)), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(10 * time.Millisecond)
		// Loose files straight in the principal's directory and a symlink
		// out of the trash, which must not be followed or its target removed.
		outside := filepath.Join(t.TempDir(), "keep")
		if err := os.WriteFile(outside, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Dir(outside), filepath.Join(root, "a", "link")); err != nil {
			t.Fatal(err)
		}
		newer := trashFixture(t, root, "b", 5, kib)
		removed, _ := sweepTrash(root, Limits{TrashMaxEntries: 20}, time.Now(), quiet)
		if exists(old) || removed != 1 {
			t.Fatalf("the old 31-entry item past the entry bound: exists=%v removed=%d", exists(old), removed)
		}
		for _, p := range newer {
			if !exists(p) {
				t.Fatalf("a newer item within the bound went: %s", p)
			}
		}
		if !exists(outside) {
			t.Fatal("a sweep followed a symlink out of the trash")
		}
	})
	t.Run("unbounded keeps all", func(t *testing.T) {
		root := t.TempDir()
		trashFixture(t, root, "a", 4, kib)
		if removed, _ := sweepTrash(root, Limits{}, time.Now(), quiet); removed != 0 {
			t.Fatalf("removed %d with no bounds", removed)
		}
	})
}
