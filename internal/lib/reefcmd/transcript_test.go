package reefcmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/stdlib"
)

// TestReefTranscript runs testdata/reef.txt in a session with Reef on, in
// $ROOT/proj, with HOME and XDG_CONFIG_HOME in the temp tree and a PATH of
// $BIN (fake tools that print their versions) then /usr/bin:/bin for sh.
// It runs on the standard registry: beside the reef command it binds
// constrained heads, answers which and navigates with cd and jump, which
// are eval's and internal/lib/nav's.
func TestReefTranscript(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	bin := filepath.Join(root, "bin")
	tool := func(name, out string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\necho \""+out+"\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"bin", "proj/sub/deep", "proj/js/node_modules/.bin", "home", "cfg"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tool("faketool", "faketool 2.4.1")
	tool("othertool", "othertool version 1.0.3")
	if err := os.WriteFile(filepath.Join(root, "proj/js/node_modules/.bin/lint"), []byte("#!/bin/sh\necho local lint\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + filepath.Join(root, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(root, "cfg")}
	in, err := eval.New(eval.Options{Registry: stdlib.Registry(), Host: host.NewOS(host.AllowAll), Dir: filepath.Join(root, "proj"), Env: env, Reef: true, ProjectTrust: reef.TrustEverything})
	if err != nil {
		t.Fatal(err)
	}
	vars := strings.NewReplacer("$ROOT", root, "$BIN", bin)
	if n := evaltest.RunFile(t, in, "testdata/reef.txt", nil, vars); n < 30 {
		t.Fatalf("only %d cases", n)
	}
}
