package leash_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenOut is what a golden file records for one program.
type goldenOut struct {
	Plan        *Plan  `json:"plan"`
	Fingerprint string `json:"fingerprint"`
}

func TestGolden(t *testing.T) {
	srcs, err := filepath.Glob(filepath.Join("testdata", "golden", "*.shl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) < 12 {
		t.Fatalf("found %d golden programs, want at least 12", len(srcs))
	}
	for _, file := range srcs {
		name := strings.TrimSuffix(filepath.Base(file), ".shl")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			prog, err := syntax.Parse(string(src), syntax.ParseOptions{IsBound: testEnv.IsBound})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			p := Derive(prog, testEnv)
			got, err := json.MarshalIndent(goldenOut{p, Fingerprint(p, string(src))}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			want := strings.TrimSuffix(file, ".shl") + ".json"
			if *update {
				if err := os.WriteFile(want, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			exp, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(got, exp) {
				t.Errorf("plan differs from %s:\n got: %s\nwant: %s", want, got, exp)
			}
		})
	}
}
