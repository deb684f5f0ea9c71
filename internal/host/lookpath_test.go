package host

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestLookPath(t *testing.T) {
	bin1, bin2 := t.TempDir(), t.TempDir()
	write := func(p string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(bin1, "noexec"), 0o644)
	write(filepath.Join(bin2, "noexec"), 0o755)
	write(filepath.Join(bin1, "tool"), 0o755)
	write(filepath.Join(bin2, "tool"), 0o755)
	if err := os.Mkdir(filepath.Join(bin1, "dirtool"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := "PATH=relative:" + bin1 + "::" + bin2
	cases := []struct {
		name string
		env  []string
		want string
		err  error
	}{
		{"tool", []string{path}, filepath.Join(bin1, "tool"), nil},
		{"noexec", []string{path}, filepath.Join(bin2, "noexec"), nil},
		{"dirtool", []string{path}, "", exec.ErrNotFound},
		{"missing", []string{path}, "", exec.ErrNotFound},
		{"tool", []string{"PATH=" + bin2, path}, filepath.Join(bin1, "tool"), nil}, // last entry wins
		{"tool", []string{"PATH="}, "", exec.ErrNotFound},
		{filepath.Join(bin2, "tool"), nil, filepath.Join(bin2, "tool"), nil},
		{filepath.Join(bin1, "noexec"), nil, "", os.ErrPermission},
		{"./tool", []string{path}, "", exec.ErrDot},
		{"", []string{path}, "", exec.ErrNotFound},
	}
	h := NewOS(AllowAll)
	for _, tc := range cases {
		got, err := h.LookPath(context.Background(), tc.name, tc.env)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("LookPath(%q, %q) = %q, %v; want %q, %v", tc.name, tc.env, got, err, tc.want, tc.err)
		}
	}
}

func TestLookPathFallsBackToHostPATH(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "only-here"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	got, err := NewOS(AllowAll).LookPath(context.Background(), "only-here", []string{"HOME=/"})
	if want := filepath.Join(bin, "only-here"); got != want || err != nil {
		t.Errorf("LookPath = %q, %v; want %q", got, err, want)
	}
}
