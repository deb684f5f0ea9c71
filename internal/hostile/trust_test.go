//go:build linux

package hostile

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/blake3"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/trust"
)

// TestHostilePlantedProjectBinary is the finding's second half through
// the real shoal-kernel: a token principal that may write the project
// directory plants a .reef.toml constraining git, an executable
// node_modules/.bin/git, a git outside the project and a reef.lock naming
// that outside git with its correct digest. The owner's session running
// `git --version` there runs the real program (or finds none) and nothing
// planted runs: the directory is not trusted. Once the owner trusts it
// as it stands, the lock's outside path is refused (reef_lock_path); when
// the agent then rewrites the lock to name its in-project binary, the
// directory has changed and is inert again. session.reef names the
// directory in its warnings throughout, and the owner's heartbeat is
// served.
func TestHostilePlantedProjectBinary(t *testing.T) {
	base, err := os.MkdirTemp("", "ht")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	pol := filepath.Join(base, "policy.toml")
	text := fmt.Sprintf(`[principal."agent:writer"]
proc_spawn = ["chmod"]
env_read = ["PATH"]
[principal."agent:writer".fs]
read = ["%[1]s/hk*/work/**", "/usr/**", "/bin/**", "/lib/**", "/lib64/**", "/etc/ld.so.cache"]
write = ["%[1]s/hk*/work/**"]
`, os.TempDir())
	if err := os.WriteFile(pol, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	k := Start(t, Options{Flags: []string{"--policy", pol}})
	hb := k.Heartbeat(t)
	ctx := Ctx(t)
	agent := k.Attach(t, "plant", k.Token(t, "agent:writer"))
	owner := k.Owner(t)

	proj := filepath.Join(k.Dir, "proj")
	marker := filepath.Join(k.Dir, "planted-ran")
	outside := filepath.Join(k.Dir, "elsewhere", "git")
	inside := filepath.Join(proj, "node_modules", ".bin", "git")
	script := "#!/bin/sh\ntouch " + marker + "\necho PLANTED\n"
	sum := blake3.Sum256([]byte(script))
	digest := hex.EncodeToString(sum[:])
	lockFor := func(provider, path string) string {
		return "[tool.git]\nversion = \"2.99.0\"\nprovider = \"" + provider + "\"\npath = \"" + path + "\"\nblake3 = \"" + digest + "\"\n"
	}
	agentDo := func(src string) {
		t.Helper()
		if _, err := agent.Exec(ctx, client.ExecParams{Src: src}); err != nil {
			t.Fatalf("agent: %s: %v", src, err)
		}
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }

	// The agent plants, as a token principal, through its own session.
	agentDo("mkdir -p proj/node_modules/.bin elsewhere")
	agentDo("save proj/.reef.toml " + q("[tools]\ngit = \"*\"\n"))
	agentDo("save proj/node_modules/.bin/git " + q(script))
	agentDo("save elsewhere/git " + q(script))
	agentDo("chmod 755 proj/node_modules/.bin/git elsewhere/git")
	agentDo("save proj/reef.lock " + q(lockFor("system", outside)))
	for _, p := range []string{inside, outside} {
		if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
			t.Fatalf("the agent's plant %s: %v %v", p, fi, err)
		}
	}

	realGit, _ := exec.LookPath("git")
	if realGit != "" && !strings.HasPrefix(realGit, "/usr/") && !strings.HasPrefix(realGit, "/bin/") {
		realGit = "" // not on the kernel's PATH
	}
	ownerGit := func(what string) string {
		t.Helper()
		r, err := owner.Exec(ctx, client.ExecParams{Src: `try { (git --version).out.trim() } catch e { e.code }`})
		if err != nil {
			t.Fatalf("%s: owner exec: %v", what, err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: a planted git ran in the owner's session (%s)", what, r.Render)
		}
		return r.Render
	}
	wantReal := func(what, got string) {
		t.Helper()
		if realGit != "" && !strings.HasPrefix(got, "git version") {
			t.Errorf("%s: the real git did not run: %s", what, got)
		}
		if realGit == "" && strings.HasPrefix(got, "git version") {
			t.Errorf("%s: a git ran where none is installed: %s", what, got)
		}
	}
	type reefReport struct {
		Bindings []struct {
			Tool        string `json:"tool"`
			Constrained bool   `json:"constrained"`
			Error       string `json:"error"`
		} `json:"bindings"`
		Warnings []string `json:"warnings"`
	}
	report := func() reefReport {
		t.Helper()
		var r reefReport
		if err := owner.Call(ctx, "session.reef", nil, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if _, err := owner.Exec(ctx, client.ExecParams{Src: "cd proj"}); err != nil {
		t.Fatal(err)
	}

	// Untrusted: the real git, a warning, nothing written.
	wantReal("untrusted", ownerGit("untrusted"))
	r := report()
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], proj+" has a .reef.toml that is not trusted") {
		t.Errorf("session.reef warnings = %q", r.Warnings)
	}
	for _, b := range r.Bindings {
		if b.Constrained {
			t.Errorf("an untrusted manifest constrained %+v", b)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(proj, "reef.lock")); string(data) != lockFor("system", outside) {
		t.Errorf("the owner's session rewrote reef.lock: %q", data)
	}

	// The owner trusts the directory as it stands, the agent's lock
	// included: the lock's outside path is still refused, and nothing
	// planted runs.
	store := trust.Open(filepath.Join(filepath.Dir(k.Dir), ".local", "state", "shoal", trust.FileName))
	if err := store.Trust(trust.ReadDir(proj), time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := ownerGit("trusted, outside lock"); got != "reef_lock_path" {
		t.Errorf("trusted, lock naming %s: %s", outside, got)
	}
	r = report()
	if len(r.Warnings) != 0 || len(r.Bindings) == 0 || r.Bindings[0].Tool != "git" || r.Bindings[0].Error != "reef_lock_path" {
		t.Errorf("session.reef with the outside lock: %+v", r)
	}

	// The agent rewrites the lock to its in-project binary (a path the
	// lock may name): the trusted directory changed, so it is inert again.
	agentDo("save proj/reef.lock " + q(lockFor("npm-local", inside)))
	wantReal("changed by the agent", ownerGit("changed by the agent"))
	r = report()
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], proj+": its project files changed since it was trusted") {
		t.Errorf("session.reef warnings after the agent's change = %q", r.Warnings)
	}
	hb.Stop(t)
	k.Alive(t)
}
