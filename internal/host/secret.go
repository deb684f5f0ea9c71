package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// SecretUse reads a named secret from the secret store (Host.Secret); its
// op's target is the secret's name.
const SecretUse Effect = "secret_use"

// SecretDir is the secret store a session with environment env reads:
// $SHOAL_SECRET_DIR, else $XDG_DATA_HOME/shoal/secrets, else
// $HOME/.local/share/shoal/secrets ("" when none is an absolute path).
func SecretDir(env []string) string {
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

// CheckSecretName reports why name cannot name a stored secret: it must be
// 1..MaxSecretName bytes of letters, digits, '.', '_' and '-', not starting
// with '.'.
func CheckSecretName(name string) error {
	if name == "" || len(name) > MaxSecretName {
		return fmt.Errorf("a secret name is 1 to %d characters", MaxSecretName)
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

// WithSecretDir sets the secret store Secret reads ("" for none). Without
// it the store is SecretDir of the host's own environment (Environ), never
// the session's: a program cannot move the store by setting a variable.
func WithSecretDir(dir string) Option {
	return func(o *OS) { o.secretDir, o.secretDirSet = dir, true }
}

// Secret reads the secret called name from the host's store (WithSecretDir),
// asking secret_use of the name first (and nothing of the file system: the
// store is the kernel's, not the program's). The file is opened without
// following a symlink and is trusted only when it is a regular file that
// neither its group nor others may read or write; otherwise the answer is
// an fs.ErrPermission error. A missing secret is fs.ErrNotExist; one
// larger than MaxSecretBytes is ErrTooLarge.
func (o *OS) Secret(ctx context.Context, name string) ([]byte, error) {
	if err := CheckSecretName(name); err != nil {
		return nil, err
	}
	if err := o.authorize(ctx, Op{Effect: SecretUse, Target: name}); err != nil {
		return nil, err
	}
	dir := o.secretDir
	if !o.secretDirSet {
		dir = SecretDir(o.environ())
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
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("secret %s: %s is not a regular file: %w", name, p, fs.ErrPermission)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("secret %s: %s may be read or written by others (mode %o; chmod 600 it): %w", name, p, st.Mode().Perm(), fs.ErrPermission)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSecretBytes+1))
	if err != nil {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	if len(data) > MaxSecretBytes {
		return nil, fmt.Errorf("secret %s: %w (%d bytes at most)", name, ErrTooLarge, MaxSecretBytes)
	}
	return data, nil
}
