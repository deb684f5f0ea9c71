package main

import (
	"bytes"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBytesKept: through the built shoal, a builtin's output redirected
// with > or >> goes to the file and nothing is printed, and cat passes a
// file's bytes through exactly (no newline added, none lost, binary data
// kept), so `shoal -c 'cat a' > b` makes b identical to a. In a kernel
// session (--kernel) only the redirects hold so far: output reaches the
// client as text events and the final value as a wire value, neither of
// which keeps raw bytes yet (issue 23, H8/H9 through a kernel).
func TestBytesKept(t *testing.T) {
	dir := binaries(t)
	shoal := filepath.Join(dir, "shoal")
	sock := startKernel(t)
	bin := make([]byte, 4096)
	if _, err := rand.Read(bin); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"no-newline": []byte("abc"),
		"newline":    []byte("x\ny\n"),
		"two":        []byte("x\n\n"),
		"empty":      nil,
		"binary":     bin,
	}
	for _, door := range []struct {
		name  string
		flags []string
		cat   bool // cat's bytes are checked
	}{{"standalone", nil, true}, {"kernel", []string{"--kernel", sock}, false}} {
		t.Run(door.name, func(t *testing.T) {
			work := t.TempDir()
			run := func(src string) []byte {
				t.Helper()
				cmd := exec.Command(shoal, append(append([]string{}, door.flags...), "-c", src)...)
				cmd.Dir = work
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Run(); err != nil {
					t.Fatalf("shoal -c %q: %v\n%s", src, err, errb.String())
				}
				return out.Bytes()
			}
			for name, data := range files {
				if !door.cat {
					break
				}
				if err := os.WriteFile(filepath.Join(work, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
				// As a script's last statement and in the middle of one.
				p := filepath.Join(work, name) // absolute: a kernel session runs in its own directory
				if got := run("cat " + p); !bytes.Equal(got, data) {
					t.Errorf("cat %s printed %q, want %q", name, clip(got), clip(data))
				}
				want := append(append([]byte{}, data...), "1\n"...)
				if got := run("cat " + p + "\n1"); !bytes.Equal(got, want) {
					t.Errorf("cat %s; 1 printed %q, want %q", name, clip(got), clip(want))
				}
			}
			f := filepath.Join(work, "f")
			if got := run("echo hi > " + f + "\necho there >> " + f); len(got) != 0 {
				t.Errorf("redirects printed %q, want nothing", got)
			}
			if data, _ := os.ReadFile(f); string(data) != "hi\nthere\n" {
				t.Errorf("f holds %q", data)
			}
			if got := run("echo last > " + filepath.Join(work, "g")); len(got) != 0 {
				t.Errorf("a redirect as the last statement printed %q", got)
			}
		})
	}
}

// clip shortens a byte string for a message.
func clip(b []byte) []byte {
	if len(b) > 40 {
		return append(append([]byte{}, b[:40]...), "…"...)
	}
	return b
}
