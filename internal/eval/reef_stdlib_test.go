package eval_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/stdlib"
	"github.com/shoalgo/shoal/internal/value"
)

// TestReefPathView (external: it locks with the reef command, which is
// internal/lib/reefcmd's): a constrained spawn's child finds the bound tools
// first on its PATH, through links in a content-addressed view under
// $XDG_RUNTIME_DIR; a hermetic scope gives it only the view, and without
// a runtime directory refuses rather than fall back to the ambient PATH.
func TestReefPathView(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	bin, rt := filepath.Join(root, "bin"), filepath.Join(root, "run")
	for _, d := range []string{bin, rt} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "showpath"), []byte("#!/bin/sh\necho \"$PATH\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := func(text string) {
		if err := os.WriteFile(filepath.Join(root, ".reef.toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifest("[tools]\nshowpath = \"*\"\nsh = \"*\"\n")
	newIn := func(env ...string) *eval.Interp {
		in, err := eval.New(eval.Options{Registry: stdlib.Registry(), Host: host.NewOS(host.AllowAll), Dir: root, Reef: true, ProjectTrust: reef.TrustEverything,
			Env: append([]string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + root}, env...)})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	in := newIn("XDG_RUNTIME_DIR=" + rt)
	if _, err := in.Eval(t.Context(), "reef lock"); err != nil {
		t.Fatal(err)
	}
	v, err := in.Eval(t.Context(), "(showpath).out.trim()")
	if err != nil {
		t.Fatal(err)
	}
	dirs := strings.Split(string(v.(value.Str)), ":")
	view := dirs[0]
	if !strings.HasPrefix(view, filepath.Join(rt, "shoal", "views")+"/") || len(dirs) != 4 || dirs[1] != bin {
		t.Fatalf("child PATH = %v", dirs)
	}
	for name, want := range map[string]string{"showpath": filepath.Join(bin, "showpath")} {
		if got, err := os.Readlink(filepath.Join(view, name)); err != nil || got != want {
			t.Errorf("%s in the view -> %q, %v", name, got, err)
		}
	}
	if _, err := os.Readlink(filepath.Join(view, "sh")); err != nil {
		t.Errorf("the locked sh is not in the view: %v", err)
	}
	// The same binding set reuses the same view.
	v2, _ := in.Eval(t.Context(), "(showpath).out.trim()")
	if strings.Split(string(v2.(value.Str)), ":")[0] != view {
		t.Errorf("second view %v, first %s", v2, view)
	}
	manifest("[tools]\nshowpath = \"*\"\nsh = \"*\"\n[options]\nhermetic = true\n")
	if v, err := in.Eval(t.Context(), "(showpath).out.trim()"); err != nil || string(v.(value.Str)) != view {
		t.Errorf("hermetic child PATH = %v, %v; want %s alone", v, err, view)
	}
	_, err = newIn().Eval(t.Context(), "showpath")
	if e, ok := err.(*value.Error); !ok || e.Code != "reef_provider" || !strings.Contains(e.Msg, "XDG_RUNTIME_DIR") {
		t.Errorf("hermetic without a runtime dir: %v", err)
	}
}
