package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/value"
)

// TestReefInteractiveAutoLock: a REPL session binds an unlocked
// constrained tool, says so on stderr and writes reef.lock; a script
// session refuses the same spawn.
func TestReefInteractiveAutoLock(t *testing.T) {
	for _, repl := range []bool{false, true} {
		root, _ := filepath.EvalSymlinks(t.TempDir())
		bin := filepath.Join(root, "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, "faketool"), []byte("#!/bin/sh\necho faketool 2.4.1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".reef.toml"), []byte("[tools]\nfaketool = \"2\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: root, Env: []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + root},
			Reef: true, ProjectTrust: reef.TrustEverything, REPL: repl, Stderr: &stderr})
		if err != nil {
			t.Fatal(err)
		}
		v, err := in.Eval(t.Context(), "(faketool).out.trim()")
		_, statErr := os.Stat(filepath.Join(root, "reef.lock"))
		if !repl {
			if e, ok := err.(*value.Error); !ok || e.Code != "reef_unlocked" || statErr == nil {
				t.Errorf("script: %v %v (lock written: %v)", v, err, statErr == nil)
			}
			continue
		}
		if err != nil || value.Inline(v) != `"faketool 2.4.1"` {
			t.Fatalf("repl: %v %v", v, err)
		}
		if !strings.Contains(stderr.String(), "reef: locked faketool@2.4.1 via system") || statErr != nil {
			t.Errorf("repl: stderr %q, lock %v", stderr.String(), statErr)
		}
		data, _ := os.ReadFile(filepath.Join(root, "reef.lock"))
		if !strings.Contains(string(data), `[tool.faketool]`) || !strings.Contains(string(data), `version = "2.4.1"`) {
			t.Errorf("lock = %s", data)
		}
	}
}
