package kernel_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/trust"
)

// TestE2ESessionReef: session.reef reports the bindings the manifest in
// the session's directory constrains, with their provider, scope and
// digest, beside the unconstrained PATH lookups, once the kernel owner
// trusted the directory (before, and after the session's own reef lock
// changed it, the manifest is ignored and a warning says so); editing the
// manifest changes the report at once, and a kernel session (script
// policy) refuses an unlocked constrained head before it starts.
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
	var warnings []string
	report := func() map[string]binding {
		t.Helper()
		var r struct {
			ActiveScope string    `json:"active_scope"`
			Bindings    []binding `json:"bindings"`
			Warnings    []string  `json:"warnings"`
		}
		if err := owner.Call(ctx, "session.reef", nil, &r); err != nil {
			t.Fatal(err)
		}
		out := map[string]binding{}
		for _, b := range r.Bindings {
			out[b.Tool] = b
		}
		warnings = r.Warnings
		return out
	}
	// The kernel reads its owner's store: HOME is k.dir's parent.
	store := trust.Open(trust.Path(func(name string) string {
		if name == "HOME" {
			return filepath.Dir(k.dir)
		}
		return ""
	}))
	trustDir := func() {
		t.Helper()
		if err := store.Trust(trust.ReadDir(k.dir), time.Now()); err != nil {
			t.Fatal(err)
		}
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
	if sh, ok := report()["sh"]; ok && sh.Constrained {
		t.Errorf("an untrusted manifest constrained sh: %+v", sh)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], k.dir+" has a .reef.toml that is not trusted") {
		t.Errorf("warnings before trust = %q", warnings)
	}
	trustDir()
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
	// A session never carries trust over its own write: the directory
	// changed, so it is inert until the owner trusts it again.
	if sh, ok := report()["sh"]; (ok && sh.Constrained) || len(warnings) != 1 || !strings.Contains(warnings[0], "changed since it was trusted") {
		t.Errorf("after the session's reef lock: sh %+v, warnings %q", sh, warnings)
	}
	trustDir()
	// Same directory, new manifest text: the next report sees it.
	time.Sleep(20 * time.Millisecond)
	write("[tools]\nsh = \"999\"\n")
	trustDir()
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
	// reef add never writes into a directory that changed since it was
	// trusted; in a trusted one it writes, and says the session's write
	// left the directory untrusted.
	if got := exec(`try { reef add "sh@*" } catch e { e.code }`); got != "reef_untrusted" {
		t.Errorf("reef add in a changed directory: %s", got)
	}
	trustDir()
	if got := exec(`(reef add "sh@*").note`); !strings.Contains(got, "no longer trusted") {
		t.Errorf("reef add in a trusted directory: %s", got)
	}
	if _, err := os.Stat(filepath.Join(k.dir, ".reef.toml")); err != nil {
		t.Errorf("reef add wrote no manifest: %v", err)
	}
}
