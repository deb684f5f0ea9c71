//go:build linux

package appendmap

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Appends within the mapping are copies that read(2) sees, the file
// allocated ahead of them a step at a time; past the mapping, and where
// fallocate is refused, they are pwrites; Truncated lets appends start
// over after the file is cut.
func TestAppendAt(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "f"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const step = 32 << 10
	const length = 4 * step
	if _, err := New(f, length, 1000); err == nil {
		t.Fatal("New with a step that is no multiple of the page size: no error")
	}
	m, err := New(f, length, step)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unmap()
	var want []byte
	appendB := func(b []byte) {
		t.Helper()
		if n, err := m.AppendAt(f, b, int64(len(want))); err != nil || n != len(b) {
			t.Fatalf("AppendAt at %d: %d, %v", len(want), n, err)
		}
		want = append(want, b...)
	}
	size := func() int64 {
		t.Helper()
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	check := func(what string) {
		t.Helper()
		got, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < len(want) || !bytes.Equal(got[:len(want)], want) || bytes.IndexFunc(got[len(want):], func(r rune) bool { return r != 0 }) >= 0 {
			t.Fatalf("%s: the file's %d bytes are not the %d appended and zeros", what, len(got), len(want))
		}
		if int64(len(got)) != m.Allocated() {
			t.Fatalf("%s: file %d bytes, allocated %d", what, len(got), m.Allocated())
		}
	}
	for i := range 300 {
		appendB(bytes.Repeat([]byte{byte('a' + i%26)}, 100+i))
	}
	if n := size(); n%step != 0 || n < int64(len(want)) || n > int64(len(want))+step {
		t.Fatalf("after copies: file %d bytes for %d appended (step %d)", n, len(want), step)
	}
	check("copies")
	// Past the mapping's end: a pwrite.
	appendB(bytes.Repeat([]byte{'z'}, length))
	if n := size(); n != int64(len(want)) {
		t.Fatalf("after a pwrite past the mapping: file %d bytes, appended %d", n, len(want))
	}
	check("past the mapping")
	// Cut, the file is appended to from its start again.
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	m.Truncated(0)
	want = want[:0]
	appendB([]byte("again"))
	check("after the cut")
	// Cut under the mapping by another hand: the copy's fault fails that
	// append (no crash), and the next ones are pwrites.
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	if n, err := m.AppendAt(f, []byte("faults"), int64(len(want))); !errors.Is(err, ErrFault) || n != 0 {
		t.Fatalf("AppendAt into a cut file: %d, %v; want 0, ErrFault", n, err)
	}
	want = want[:0]
	m.Truncated(0)
	appendB([]byte("after the fault"))
	check("after the fault")
	// fallocate refused: pwrites, and the file ends where they do.
	m.noAlloc = true
	appendB(bytes.Repeat([]byte{'r'}, 2*step))
	check("fallocate refused")
}
