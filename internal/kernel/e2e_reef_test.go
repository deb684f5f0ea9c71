package kernel_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
)

// TestE2ESessionReef: session.reef reports the bindings the manifest in
// the session's directory constrains, with their provider, scope and
// digest, beside the unconstrained PATH lookups; editing the manifest
// changes the report at once, and a kernel session (script policy)
// refuses an unlocked constrained head before it starts.
func TestE2ESessionReef(t *testing.T) {
	k := newE2E(t)
	ctx := testCtx(t)
	owner := k.attached(t, "reef", "")
	type binding struct {
		Tool        string  `json:"tool"`
		Version     *string `json:"version"`
		Provider    string  `json:"provider"`
		Path        string  `json:"path"`
		Scope       string  `json:"scope"`
		Constrained bool    `json:"constrained"`
		Constraint  string  `json:"constraint"`
		Hash8       string  `json:"hash8"`
		Error       string  `json:"error"`
	}
	report := func() map[string]binding {
		t.Helper()
		var r struct {
			ActiveScope string    `json:"active_scope"`
			Bindings    []binding `json:"bindings"`
		}
		if err := owner.Call(ctx, "session.reef", nil, &r); err != nil {
			t.Fatal(err)
		}
		out := map[string]binding{}
		for _, b := range r.Bindings {
			out[b.Tool] = b
		}
		return out
	}
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(k.dir, ".reef.toml"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	exec := func(src string) string {
		t.Helper()
		r, err := owner.Exec(ctx, client.ExecParams{Src: src})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return r.Render
	}

	if got := exec("(which tr).scope"); got != "system" {
		t.Errorf("which tr before any manifest: %s", got)
	}
	write("[tools]\nsh = \"*\"\n")
	r := report()
	sh := r["sh"]
	if !sh.Constrained || sh.Provider != "system" || sh.Scope != "reef" || sh.Constraint != "*" || len(sh.Hash8) != 8 || !filepath.IsAbs(sh.Path) || sh.Error != "" {
		t.Errorf("sh under sh = \"*\": %+v", sh)
	}
	if c, ok := r["tr"]; !ok || c.Constrained || c.Scope != k.dir {
		t.Errorf("the unconstrained tr lookup: %+v (present %v)", c, ok)
	}
	// A kernel session is a script: the unlocked sh is refused before it
	// runs, until reef lock records it.
	if got := exec(`try { ^sh -c "exit 0" } catch e { e.code }`); got != "reef_unlocked" {
		t.Errorf("unlocked sh: %s", got)
	}
	if got := exec("(reef lock).first().locked"); got != "true" {
		t.Errorf("reef lock: %s", got)
	}
	if got := exec(`(^sh -c "echo hi").out.trim()`); got != "hi" {
		t.Errorf("locked sh: %s", got)
	}
	if _, err := os.Stat(filepath.Join(k.dir, "reef.lock")); err != nil {
		t.Errorf("reef.lock: %v", err)
	}
	// Same directory, new manifest text: the next report sees it.
	time.Sleep(20 * time.Millisecond)
	write("[tools]\nsh = \"999\"\n")
	if sh := report()["sh"]; !sh.Constrained || sh.Error != "reef_not_found" || sh.Scope != "unresolved: reef_not_found" || sh.Path != "" {
		t.Errorf("sh under sh = \"999\": %+v", sh)
	}
	if got := exec(`try { ^sh -c "exit 0" } catch e { e.code }`); got != "reef_unlocked" {
		t.Errorf("sh = 999 in a script session: %s", got)
	}
	if err := os.Remove(filepath.Join(k.dir, ".reef.toml")); err != nil {
		t.Fatal(err)
	}
	if sh, ok := report()["sh"]; ok && sh.Constrained {
		t.Errorf("sh after the manifest went: %+v", sh)
	}
}
