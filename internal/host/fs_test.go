package host

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestFileRoundTrip(t *testing.T) {
	ctx := context.Background()
	h := NewOS(AllowAll)
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")

	if err := h.WriteFile(ctx, p, []byte("one\n"), false); err != nil {
		t.Fatal(err)
	}
	if err := h.WriteFile(ctx, p, []byte("two\n"), true); err != nil {
		t.Fatal(err)
	}
	if got, err := h.ReadFile(ctx, p); err != nil || string(got) != "one\ntwo\n" {
		t.Fatalf("after append ReadFile = %q, %v", got, err)
	}
	if err := h.WriteFile(ctx, p, []byte("three"), false); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.ReadFile(ctx, p); string(got) != "three" {
		t.Fatalf("after overwrite ReadFile = %q", got)
	}
	fi, err := h.Stat(ctx, p)
	if err != nil || fi.Size() != 5 || !fi.Mode().IsRegular() {
		t.Fatalf("Stat = %v, %v", fi, err)
	}

	link := filepath.Join(dir, "link")
	if err := h.Symlink(ctx, "f.txt", link); err != nil {
		t.Fatal(err)
	}
	if fi, err := h.Lstat(ctx, link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat(link) = %v, %v; want a symlink", fi, err)
	}
	if fi, err := h.Stat(ctx, link); err != nil || fi.Size() != 5 {
		t.Errorf("Stat(link) = %v, %v; want the target", fi, err)
	}

	if err := h.MkdirAll(ctx, filepath.Join(dir, "a/b/c")); err != nil {
		t.Fatal(err)
	}
	if err := h.MkdirAll(ctx, filepath.Join(dir, "a/b/c")); err != nil {
		t.Errorf("MkdirAll on existing dir: %v", err)
	}
	entries, err := h.ReadDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got, want := len(names), 3; got != want || names[0] != "a" || names[1] != "f.txt" || names[2] != "link" {
		t.Errorf("ReadDir names = %v", names)
	}
	if _, err := h.ReadFile(ctx, filepath.Join(dir, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v, want ErrNotExist", err)
	}
}

func TestRemove(t *testing.T) {
	ctx := context.Background()
	h := NewOS(AllowAll)
	dir := t.TempDir()
	writeTree(t, dir, "f.txt", "tree/x/y.txt", "tree/z.txt")

	if err := h.Remove(ctx, filepath.Join(dir, "tree"), false); err == nil {
		t.Error("non-recursive Remove of a non-empty dir succeeded")
	}
	if err := h.Remove(ctx, filepath.Join(dir, "tree"), true); err != nil {
		t.Fatal(err)
	}
	if err := h.Remove(ctx, filepath.Join(dir, "f.txt"), false); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, dir); got != ". "+mustMode(t, dir)+"\n" {
		t.Errorf("tree after removes:\n%s", got)
	}
	for _, rec := range []bool{false, true} {
		if err := h.Remove(ctx, filepath.Join(dir, "missing"), rec); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Remove(missing, %v) = %v, want ErrNotExist", rec, err)
		}
	}
}

func mustMode(t *testing.T, p string) string {
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().String()
}

func TestRename(t *testing.T) {
	ctx := context.Background()
	h := NewOS(AllowAll)
	dir := t.TempDir()
	writeTree(t, dir, "a.txt", "b.txt")
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	if err := h.Rename(ctx, a, a); err != nil {
		t.Errorf("rename onto itself: %v", err)
	}
	if err := h.Rename(ctx, a, b); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(b); string(got) != "a.txt" {
		t.Errorf("b.txt = %q, want the content of a.txt", got)
	}
	if _, err := os.Stat(a); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a.txt still there: %v", err)
	}
}

func TestCopyFile(t *testing.T) {
	ctx := context.Background()
	h := NewOS(AllowAll)
	dir := t.TempDir()
	src := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(src, []byte("#!/bin/sh\n"), 0o751); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "copy.sh")
	// An existing destination with other bits gets the source's.
	if err := os.WriteFile(dst, []byte("old content that is longer"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.Copy(ctx, src, dst, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "#!/bin/sh\n" {
		t.Errorf("copy content = %q", got)
	}
	if got := mustMode(t, dst); got != "-rwxr-x--x" {
		t.Errorf("copy mode = %s, want -rwxr-x--x", got)
	}

	cases := []struct {
		name     string
		from, to string
		rec      bool
		want     error
	}{
		{"same file", src, src, false, ErrSameFile},
		{"dir without recursive", dir, filepath.Join(t.TempDir(), "d"), false, ErrIsDir},
		{"dir into itself", dir, filepath.Join(dir, "inner"), true, ErrSameFile},
		{"missing source", filepath.Join(dir, "nope"), dst, false, fs.ErrNotExist},
	}
	for _, tc := range cases {
		if err := h.Copy(ctx, tc.from, tc.to, tc.rec); !errors.Is(err, tc.want) {
			t.Errorf("%s: Copy = %v, want %v", tc.name, err, tc.want)
		}
	}
	if got, _ := os.ReadFile(src); string(got) != "#!/bin/sh\n" {
		t.Errorf("same-file copy clobbered the source: %q", got)
	}
}

func TestCopyTree(t *testing.T) {
	ctx := context.Background()
	h := NewOS(AllowAll)
	src := t.TempDir()
	writeTree(t, src, "top.txt", "d/inner.txt", "d/e/deep.txt", "empty/")
	if err := os.Chmod(filepath.Join(src, "d/inner.txt"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(src, "d/e"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../top.txt", filepath.Join(src, "d/link")); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "copy")
	if err := h.Copy(ctx, src, dst, true); err != nil {
		t.Fatal(err)
	}
	if got, want := snapshot(t, dst), snapshot(t, src); got != want {
		t.Errorf("copied tree differs:\ngot:\n%swant:\n%s", got, want)
	}
	// Copying again merges into the existing tree without error.
	if err := h.Copy(ctx, src, dst, true); err != nil {
		t.Errorf("second copy: %v", err)
	}
}

func TestLinkAndChtimes(t *testing.T) {
	ctx := context.Background()
	h := NewOS(AllowAll)
	dir := t.TempDir()
	src, hard := filepath.Join(dir, "src"), filepath.Join(dir, "hard")
	if err := os.WriteFile(src, []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.Link(ctx, src, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(hard); err != nil || string(got) != "changed" {
		t.Errorf("hard link reads %q, %v; want the shared content", got, err)
	}
	if fi, err := os.Lstat(hard); err != nil || fi.Mode()&fs.ModeSymlink != 0 {
		t.Errorf("Lstat(hard) = %v, %v; want a regular file", fi, err)
	}
	if err := h.Link(ctx, filepath.Join(dir, "missing"), filepath.Join(dir, "x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Link(missing) = %v, want not-exist", err)
	}

	when := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := h.Chtimes(ctx, src, when, when); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(src); err != nil || !fi.ModTime().Equal(when) {
		t.Errorf("mtime after Chtimes = %v, %v; want %v", fi.ModTime(), err, when)
	}
}

func TestFacts(t *testing.T) {
	h := NewOS(AllowAll)
	get := func(fact string) Facts {
		t.Helper()
		f, err := h.Facts(context.Background(), fact)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if f := get("pid"); f.Pid != os.Getpid() || f.Hostname != "" || f.OS != "" || f.CPUs != 0 {
		t.Errorf("pid: %+v (only the asked fact is filled)", f)
	}
	if f := get("cpus"); f.CPUs < 1 || f.OS != "" {
		t.Errorf("cpus: %+v", f)
	}
	if f := get("platform"); f.OS != runtime.GOOS || f.Arch != "" {
		t.Errorf("platform: %+v", f)
	}
	if f := get("arch"); f.Arch != runtime.GOARCH || f.OS != "" {
		t.Errorf("arch: %+v", f)
	}
	if want, _ := os.Hostname(); get("hostname").Hostname != want {
		t.Errorf("Hostname, want %q", want)
	}
	if f := get("uptime"); runtime.GOOS == "linux" && (!f.UptimeKnown || f.Uptime <= 0) {
		t.Errorf("Uptime = %v (known %v), want a positive boot time on linux", f.Uptime, f.UptimeKnown)
	}
	if _, err := h.Facts(context.Background(), "secrets"); err == nil {
		t.Error("an unknown fact was answered")
	}
	// Each fact is its own ask.
	var asked []Op
	rec := NewOS(authFunc(func(_ context.Context, op Op) error { asked = append(asked, op); return nil }))
	_, _ = rec.Facts(context.Background(), "hostname")
	if len(asked) != 1 || asked[0].Effect != SysRead || asked[0].Target != "hostname" {
		t.Errorf("asked %+v, want sys_read hostname", asked)
	}
}

// authFunc adapts a function to Authorizer.
type authFunc func(context.Context, Op) error

func (f authFunc) Authorize(ctx context.Context, op Op) error { return f(ctx, op) }

// TestReadFileBounded: ReadFile fails with ErrTooLarge past the read bound
// (also on a file that never ends), reads a file at the bound whole, and
// ReadPrefix returns the start and whether there is more.
func TestReadFileBounded(t *testing.T) {
	dir := t.TempDir()
	h := NewOS(AllowAll, WithMaxRead(1000))
	ctx := context.Background()
	at := filepath.Join(dir, "at")
	past := filepath.Join(dir, "past")
	if err := os.WriteFile(at, bytes.Repeat([]byte("a"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(past, bytes.Repeat([]byte("b"), 1001), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := h.ReadFile(ctx, at); err != nil || len(data) != 1000 {
		t.Errorf("ReadFile at the bound: %d bytes, %v", len(data), err)
	}
	if _, err := h.ReadFile(ctx, past); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile past the bound: %v, want ErrTooLarge", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := h.ReadFile(ctx, "/dev/zero"); !errors.Is(err, ErrTooLarge) {
			t.Errorf("ReadFile /dev/zero: %v, want ErrTooLarge", err)
		}
		data, more, err := h.ReadPrefix(ctx, "/dev/zero", 10)
		if err != nil || len(data) != 10 || !more {
			t.Errorf("ReadPrefix /dev/zero = %d bytes, more %v, %v", len(data), more, err)
		}
	}
	for _, tc := range []struct {
		n        int64
		wantLen  int
		wantMore bool
	}{{0, 0, true}, {10, 10, true}, {1001, 1000, false}, {5000, 1000, false}} {
		data, more, err := NewOS(AllowAll).ReadPrefix(ctx, at, tc.n)
		if err != nil || len(data) != tc.wantLen || more != tc.wantMore {
			t.Errorf("ReadPrefix(%d) = %d bytes, more %v, %v; want %d, %v", tc.n, len(data), more, err, tc.wantLen, tc.wantMore)
		}
	}
	// ReadPrefix never reads past the host's bound either.
	if data, more, err := h.ReadPrefix(ctx, past, 5000); err != nil || len(data) != 1000 || !more {
		t.Errorf("ReadPrefix past the bound = %d bytes, more %v, %v", len(data), more, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := h.ReadFile(cctx, at); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFile with a cancelled context: %v", err)
	}
}

// TestCopyEndlessSourceBounded: copying a device that never ends stops at
// the read bound and leaves no partial file; /dev/null copies as empty.
func TestCopyEndlessSourceBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	h := NewOS(AllowAll, WithMaxRead(1<<20))
	dst := filepath.Join(dir, "zeros")
	if err := h.Copy(context.Background(), "/dev/zero", dst, false); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("copy /dev/zero: %v, want ErrTooLarge", err)
	}
	if _, err := os.Stat(dst); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("partial copy left behind: %v", err)
	}
	empty := filepath.Join(dir, "empty")
	if err := h.Copy(context.Background(), "/dev/null", empty, false); err != nil {
		t.Fatalf("copy /dev/null: %v", err)
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Errorf("copy of /dev/null: %v, %v", fi, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Copy(ctx, "/dev/zero", dst, false); !errors.Is(err, context.Canceled) {
		t.Errorf("copy with a cancelled context: %v", err)
	}
}
