// Package secretstore is the on-disk store of named secrets that the
// language's secret.get reads (through internal/host, which asks
// secret_use first) and the shoal-secret command writes: one private file
// per secret in a private directory. The evaluator and the command find
// the directory the same way (Dir), so they never disagree about it.
//
// A file is trusted only when it is a regular file, not a symlink, that
// neither its group nor others may read or write; otherwise reading it is
// an fs.ErrPermission error. It opens files in the store directory and
// nothing else of the operating system.
package secretstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/shoalgo/shoal/internal/atomicfile"
)

// ErrTooLarge is matched by the error of a secret past MaxBytes.
var ErrTooLarge = errors.New("secret is larger than the store allows")

// Dir is the store a process with environment env uses:
// $SHOAL_SECRET_DIR, else $XDG_DATA_HOME/shoal/secrets, else
// $HOME/.local/share/shoal/secrets ("" when none is an absolute path).
// The last assignment of a name in env wins.
func Dir(env []string) string {
	get := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
	if d := get("SHOAL_SECRET_DIR"); filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	if d := get("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "shoal", "secrets")
	}
	if h := get("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "share", "shoal", "secrets")
	}
	return ""
}

// CheckName reports why name cannot name a secret: it must be 1..MaxName
// bytes of ASCII letters, digits, '.', '_' and '-', not starting with '.'.
func CheckName(name string) error {
	if name == "" || len(name) > MaxName {
		return fmt.Errorf("a secret name is 1 to %d characters", MaxName)
	}
	if name[0] == '.' {
		return fmt.Errorf("secret name %q starts with a dot", name)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("secret name %q may hold only letters, digits, '.', '_' and '-'", name)
		}
	}
	return nil
}

// Read returns the secret name from the store dir. A missing secret (or
// store) is fs.ErrNotExist; a file that is not private, not regular or a
// symlink is fs.ErrPermission; one past MaxBytes is ErrTooLarge.
func Read(dir, name string) ([]byte, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, fmt.Errorf("secret %s: %w (no secret store: set SHOAL_SECRET_DIR, XDG_DATA_HOME or HOME)", name, fs.ErrNotExist)
	}
	p := filepath.Join(dir, name)
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("secret %s is not in the store %s: %w", name, dir, fs.ErrNotExist)
		}
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("secret %s: %s is a symlink: %w", name, p, fs.ErrPermission)
		}
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	defer f.Close()
	if err := private(f, p); err != nil {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("secret %s: %w (%d bytes at most)", name, ErrTooLarge, MaxBytes)
	}
	return data, nil
}

// private checks an open store file.
func private(f *os.File, p string) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file: %w", p, fs.ErrPermission)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s may be read or written by others (mode %o; chmod 600 it): %w", p, st.Mode().Perm(), fs.ErrPermission)
	}
	return nil
}

// Set stores data as the secret name in dir, made private (0700) if
// missing: written to a private temporary file, synced and renamed over
// the old one, so a reader sees the old secret or the new one whole.
func Set(dir, name string, data []byte) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if dir == "" {
		return errors.New("no secret store: set SHOAL_SECRET_DIR, XDG_DATA_HOME or HOME")
	}
	if len(data) > MaxBytes {
		return fmt.Errorf("secret %s: %w (%d bytes at most)", name, ErrTooLarge, MaxBytes)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if st, err := os.Lstat(dir); err != nil {
		return err
	} else if !st.IsDir() || st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("the store %s is not a private directory (chmod 700 it): %w", dir, fs.ErrPermission)
	}
	return atomicfile.Write(filepath.Join(dir, name), data, 0o600)
}

// Delete removes the secret name; a missing one is not an error.
func Delete(dir, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if dir == "" {
		return nil
	}
	err := os.Remove(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// List returns the names stored in dir, sorted, at most MaxList of them
// (more reports how many were left out). Files that could not name a
// secret (temporary files, other names) are skipped; a missing store is
// empty.
func List(dir string) (names []string, more int, err error) {
	if dir == "" {
		return nil, 0, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || CheckName(e.Name()) != nil {
			continue
		}
		if len(names) == MaxList {
			more++
			continue
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, more, nil
}
