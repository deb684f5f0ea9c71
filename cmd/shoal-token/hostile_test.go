package main

import (
	buildversion "github.com/shoalgo/shoal/internal/version"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/auth"
)

// TestCreateRefusesOwnerPrincipals: shoal-token never mints a token that
// names, or reads as, the kernel owner; the refusal is a usage error and
// writes nothing.
func TestCreateRefusesOwnerPrincipals(t *testing.T) {
	dir := setupEnv(t)
	sd := filepath.Join(dir, "sd")
	for _, args := range [][]string{
		{"uid:0"},
		{"uid:" + itoa(os.Geteuid())},
		{"UID:0"},
		{"uid=0"},
		{"root"},
		{"owner", "p"},
		{"0"},
		{"agent:x", "local-human"},
		{" agent:x"},
		{"agent:\u0445"},
		{"agent:" + strings.Repeat("x", auth.MaxPrincipal)},
	} {
		code, out, errs := runIn(t, append([]string{"create"}, append(args, "--state-dir", sd)...)...)
		if code != exitUsage || out != "" || !strings.Contains(errs, "invalid") {
			t.Errorf("create %q: code %d, stdout %q, stderr %q; want a usage error", args, code, out, errs)
		}
	}
	if _, err := os.Stat(auth.StorePath(sd)); !os.IsNotExist(err) {
		t.Errorf("refused creates wrote a store: %v", err)
	}
}

// TestHostileStoreRefused: every subcommand fails (exit 1, the reason on
// stderr, promptly) on a store that is a FIFO, a symbolic link, or in a
// group-writable directory, and changes nothing.
func TestHostileStoreRefused(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, sd, store string)
		want  string
	}{
		{"fifo", func(t *testing.T, sd, store string) {
			os.Remove(store)
			if err := syscall.Mkfifo(store, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "is a FIFO"},
		{"symlink", func(t *testing.T, sd, store string) {
			target := filepath.Join(t.TempDir(), "target.json")
			if err := os.Rename(store, target); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, store); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
		{"group-writable dir", func(t *testing.T, sd, store string) {
			if err := os.Chmod(sd, 0o770); err != nil {
				t.Fatal(err)
			}
		}, "writable by group or others"},
		{"world-writable store", func(t *testing.T, sd, store string) {
			if err := os.Chmod(store, 0o666); err != nil {
				t.Fatal(err)
			}
		}, "writable by group or others"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := setupEnv(t)
			sd := filepath.Join(dir, "sd")
			if code, _, errs := runIn(t, "create", "agent:a", "--state-dir", sd); code != exitOK {
				t.Fatalf("create: %d %s", code, errs)
			}
			store := auth.StorePath(sd)
			tc.plant(t, sd, store)
			for _, args := range [][]string{
				{"create", "agent:b"},
				{"list"},
				{"list", "--json"},
				{"revoke", "0011223344556677"},
			} {
				done := make(chan struct{})
				var code int
				var out, errs string
				go func() {
					defer close(done)
					code, out, errs = runIn(t, append(args, "--state-dir", sd)...)
				}()
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					t.Fatalf("%q hung on a %s store", args, tc.name)
				}
				if code != exitFailure || out != "" || !strings.Contains(errs, tc.want) {
					t.Errorf("%q: code %d, stdout %q, stderr %q; want exit 1 saying %q", args, code, out, errs, tc.want)
				}
			}
		})
	}
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// TestVersion: shoal-token --version prints the build's one version string.
func TestVersion(t *testing.T) {
	var out, errb strings.Builder
	if code := run([]string{"--version"}, &out, &errb, time.Now); code != exitOK || !strings.HasPrefix(out.String(), "shoal-token "+buildversion.String()+" (") {
		t.Fatalf("--version: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
