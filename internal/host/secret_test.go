package host

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/secretstore"
)

// TestSecretStore: the store's file is read only when private, regular
// and not a symlink; secret_use is asked before anything is opened; the
// store is the host's (WithSecretDir, else its own environment).
func TestSecretStore(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("tok", "material", 0o600)
	write("wide", "x", 0o640)
	write("big", strings.Repeat("x", secretstore.MaxBytes+1), 0o600)
	if err := os.Symlink(filepath.Join(dir, "tok"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	var asked []Op
	gate := AuthorizerFunc(func(_ context.Context, op Op) error {
		asked = append(asked, op)
		if op.Target == "denied" {
			return Denied(op, "test")
		}
		return nil
	})
	h := newOS(gate, WithSecretDir(dir))
	ctx := context.Background()
	if b, err := h.Secret(ctx, "tok"); err != nil || string(b) != "material" {
		t.Fatalf("Secret(tok) = %q, %v", b, err)
	}
	for name, want := range map[string]error{
		"wide": fs.ErrPermission, "link": fs.ErrPermission, "sub": fs.ErrPermission,
		"nope": fs.ErrNotExist, "big": ErrTooLarge, "denied": ErrDenied,
	} {
		if _, err := h.Secret(ctx, name); !errors.Is(err, want) {
			t.Errorf("Secret(%s) = %v, want %v", name, err, want)
		}
	}
	n := len(asked)
	for _, bad := range []string{"", "../tok", "a/b", ".hidden", strings.Repeat("a", secretstore.MaxName+1)} {
		if _, err := h.Secret(ctx, bad); err == nil {
			t.Errorf("Secret(%q) succeeded", bad)
		}
	}
	if len(asked) != n {
		t.Errorf("bad names reached the gate: %v", asked[n:])
	}
	for _, op := range asked {
		if op.Effect != SecretUse {
			t.Errorf("Secret asked %v", op)
		}
	}
	fromEnv := newOS(AllowAll, WithEnviron([]string{"SHOAL_SECRET_DIR=" + dir}))
	if b, err := fromEnv.Secret(ctx, "tok"); err != nil || string(b) != "material" {
		t.Errorf("the host environment's store: %q, %v", b, err)
	}
	none := newOS(AllowAll, WithSecretDir(""))
	if _, err := none.Secret(ctx, "tok"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no store: %v", err)
	}
}
