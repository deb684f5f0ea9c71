package host

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkSpawnTrue runs /bin/true through the host gate (authorisation,
// process group, capture writers, status decoding).
func BenchmarkSpawnTrue(b *testing.B) {
	truePath := prog(b, "true")
	h := NewOS(AllowAll)
	ctx := context.Background()
	s := &Spawn{Argv: []string{truePath}, Env: []string{"PATH=/usr/bin:/bin"}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := h.Run(ctx, s)
		if err != nil || res.Status == nil || *res.Status != 0 {
			b.Fatalf("Run = %+v, %v", res, err)
		}
	}
}

// BenchmarkSpawnTrueExec is the baseline: plain os/exec with captured
// stdout and stderr, the same work without the gate.
func BenchmarkSpawnTrueExec(b *testing.B) {
	truePath := prog(b, "true")
	b.ReportAllocs()
	for b.Loop() {
		var out, errb bytes.Buffer
		cmd := exec.Command(truePath)
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGlobRecursive expands "**/*.txt" over a 3-level tree.
func BenchmarkGlobRecursive(b *testing.B) {
	dir := b.TempDir()
	for _, a := range []string{"a", "b", "c", "d"} {
		for _, c := range []string{"x", "y", "z"} {
			for _, f := range []string{"1.txt", "2.txt", "3.go"} {
				mustWrite(b, dir+"/"+a+"/"+c+"/"+f)
			}
		}
	}
	h := NewOS(AllowAll)
	b.ReportAllocs()
	for b.Loop() {
		got, err := h.Glob(context.Background(), dir, "**/*.txt", false)
		if err != nil || len(got) != 24 {
			b.Fatalf("Glob = %d matches, %v", len(got), err)
		}
	}
}

func mustWrite(b *testing.B, p string) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStatResolved is Stat of a file six directories deep through a
// gate that judges resolved targets: the host resolves the path (one
// lstat per component) before asking. BenchmarkStatAllowAll is the floor:
// the same Stat through AllowAll, which needs no resolution.
func BenchmarkStatResolved(b *testing.B) {
	benchStat(b, AuthorizerFunc(func(context.Context, Op) error { return nil }))
}

func BenchmarkStatAllowAll(b *testing.B) { benchStat(b, AllowAll) }

// BenchmarkStatUnrestricted is Stat through a gate that says it is
// unrestricted (the kernel owner's session gate): as AllowAll, no
// resolution and no held descriptor, but the gate is still asked.
func BenchmarkStatUnrestricted(b *testing.B) { benchStat(b, unrestrictedGate{}) }

type unrestrictedGate struct{}

func (unrestrictedGate) Unrestricted() bool                  { return true }
func (unrestrictedGate) Authorize(context.Context, Op) error { return nil }

func benchStat(b *testing.B, auth Authorizer) {
	dir := filepath.Join(b.TempDir(), "a", "b", "c", "d", "e")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	h := NewOS(auth)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Stat(ctx, f); err != nil {
			b.Fatal(err)
		}
	}
}
