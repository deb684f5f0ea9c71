package fs_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/lib/fs"
	"github.com/shoalgo/shoal/internal/libtest"
	"github.com/shoalgo/shoal/internal/value"
)

// TestTrashCopyBounded: when the trash is on another file system, rm
// copies the target there; a target past MaxTrashCopyBytes is refused
// with too_large before anything is copied or removed, and a small one
// still moves. (A sparse file stands in for a large one.)
func TestTrashCopyBounded(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "shoal-trash-test-")
	if err != nil {
		t.Skip("no /dev/shm to put the trash on another file system:", err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	dir := t.TempDir()
	var a, b syscall.Stat_t
	if syscall.Stat(dir, &a) != nil || syscall.Stat(shm, &b) != nil || a.Dev == b.Dev {
		t.Skip("the temp dir and /dev/shm are one file system here")
	}
	big := filepath.Join(dir, "big.img")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(fs.MaxTrashCopyBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(dir, "small.txt"), []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := eval.New(eval.Options{Registry: libtest.Registry, Host: host.NewOS(host.AllowAll), Dir: dir, Trash: shm, Env: []string{"HOME=" + dir, "PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = in.Eval(context.Background(), "rm big.img")
	if code := evaltest.Code(err); code != "too_large" {
		t.Fatalf("rm of a file past the copy bound: code %q (%v), want too_large", code, err)
	}
	if _, err := os.Stat(big); err != nil {
		t.Fatalf("the refused target is gone: %v", err)
	}
	if n := countFiles(t, shm); n != 0 {
		t.Fatalf("the refused rm left %d files in the trash", n)
	}
	v, err := in.Eval(context.Background(), `path((rm small.txt).out.first().trash).read`)
	if err != nil || v != value.Str("kept") {
		t.Fatalf("rm of a small file across file systems: %v, %v", v, err)
	}
}

func countFiles(t *testing.T, root string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
