package rawio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteFileAppends: WriteFile writes whole records at the end of a
// file opened for appending, as os.File's Write does, and fails as it
// does on a file closed or not open for writing.
func TestWriteFileAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for i, rec := range [][]byte{[]byte("first\n"), bytes.Repeat([]byte("x"), 1<<20), []byte("last\n")} {
		if i == 1 {
			// Something else moved the offset: an append still goes to the end.
			if _, err := f.Seek(0, 0); err != nil {
				t.Fatal(err)
			}
		}
		n, err := WriteFile(f, rec)
		if err != nil || n != len(rec) {
			t.Fatalf("WriteFile(%d bytes) = %d, %v", len(rec), n, err)
		}
		want = append(want, rec...)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the file holds %d bytes, not the %d written", len(got), len(want))
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var pe *os.PathError
	if _, err := WriteFile(f, []byte("late")); !errors.As(err, &pe) || !errors.Is(err, os.ErrClosed) {
		t.Fatalf("WriteFile on a closed file: %v, want a *PathError of os.ErrClosed", err)
	}
	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if n, err := WriteFile(ro, []byte("no")); n != 0 || !errors.As(err, &pe) || !errors.Is(err, syscall.EBADF) {
		t.Fatalf("WriteFile on a read-only file = %d, %v; want 0 and EBADF", n, err)
	}
	if _, err := ro.Write([]byte("no")); !errors.Is(err, syscall.EBADF) {
		t.Fatalf("os.File's Write on a read-only file: %v (the test's premise)", err)
	}
}
