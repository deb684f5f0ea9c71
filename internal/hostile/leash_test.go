//go:build linux

package hostile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/sandbox"
	"github.com/shoalgo/shoal/proto"
)

// TestLeashBadPolicyFailsStartup: an explicit policy with an unknown field,
// a bad value or a missing file stops shoal-kernel before it listens,
// non-zero, naming the file with the line and column of the problem.
func TestLeashBadPolicyFailsStartup(t *testing.T) {
	base, err := os.MkdirTemp("", "hp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	for _, tc := range []struct {
		name, text, want string
	}{
		{"unknown-field.toml", "[principal.\"agent:x\"]\nproc_spawn = [\"git\"]\nfs_raed = [\"/tmp/**\"]\n", ":3:1"},
		{"bad-enum.toml", "[principal.\"agent:x\"]\n\nauto_apply = \"sometimes\"\n", ":3:"},
		{"missing.toml", "", "missing.toml"},
	} {
		path := filepath.Join(base, tc.name)
		if tc.text != "" {
			if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		sock := filepath.Join(base, "k.sock")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, Bin("shoal-kernel"), "--socket", sock, "--state-dir", filepath.Join(base, "state"), "--policy", path)
		cmd.Dir = base
		cmd.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin", "XDG_RUNTIME_DIR=" + base}
		out, err := cmd.CombinedOutput()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() == 0 {
			t.Errorf("%s: exit %v, output %q; want a non-zero exit", tc.name, err, out)
		}
		if s := string(out); !strings.Contains(s, path) || !strings.Contains(s, tc.want) || strings.Contains(s, "ready") {
			t.Errorf("%s: output %q, want the file and %q", tc.name, s, tc.want)
		}
		if _, err := os.Lstat(sock); err == nil {
			t.Errorf("%s: a socket was made despite the bad policy", tc.name)
		}
	}
}

// TestLeashBinaryConfinesSpawns: through the shipped binary, a token principal allowed to run sh reads inside its grants
// and is refused /etc/shadow by the OS; the owner's heartbeat is served
// meanwhile.
func TestLeashBinaryConfinesSpawns(t *testing.T) {
	base, err := os.MkdirTemp("", "hl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	pol := filepath.Join(base, "policy.toml")
	// The kernel's working directory is made by Start under its own temp
	// base, so the grant names it by glob: every hk* temp directory.
	text := fmt.Sprintf(`[principal."agent:sh"]
proc_spawn = ["sh"]
env_read = ["PATH"]
[principal."agent:sh".fs]
read = ["%s/hk*/work/**", "/usr/**", "/bin/**", "/lib/**", "/lib64/**", "/etc/ld.so.cache"]
`, os.TempDir())
	if err := os.WriteFile(pol, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	k := Start(t, Options{Flags: []string{"--policy", pol}})
	hb := k.Heartbeat(t)
	c := k.Client(t)
	ctx := Ctx(t)
	att, err := c.Attach(ctx, client.AttachParams{Token: k.Token(t, "agent:sh")})
	if err != nil {
		t.Fatal(err)
	}
	if sup := sandbox.Probe(); !sup.FS {
		if att.CapsEnforced {
			t.Error("caps_enforced is true on a machine without Landlock")
		}
		hb.Stop(t)
		t.Skipf("no Landlock here (ABI %d): %s", sup.ABI, sup.Reason)
	}
	if !att.CapsEnforced || !att.Caps.Enforced || !att.Caps.Dimensions.FS || att.Caps.Tier != "landlock" {
		t.Errorf("attach under fs grants with Landlock: caps %+v, caps_enforced %v", att.Caps, att.CapsEnforced)
	}
	if err := os.WriteFile(filepath.Join(k.Dir, "mine.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := c.Exec(ctx, client.ExecParams{Src: `(sh -c 'cat mine.txt').out`})
	if err != nil || !strings.Contains(res.Render, "mine") {
		t.Fatalf("reading inside the grant: %+v, %v", res, err)
	}
	res, err = c.Exec(ctx, client.ExecParams{Src: `sh -c 'cat /etc/shadow'`, Position: "value"})
	if err != nil {
		t.Fatalf("the plan or gate refused what only the OS should: %v", err)
	}
	if !strings.Contains(string(res.Value), `"ok":false`) || !strings.Contains(string(res.Value), "ermission denied") || strings.Contains(string(res.Value), "root:") {
		t.Errorf("cat /etc/shadow under the sandbox: %s", res.Value)
	}
	// A shell may not escape by writing outside either.
	_, err = c.Exec(ctx, client.ExecParams{Src: `touch ../escaped`})
	WantCode(t, err, proto.CodeLeashDenied)
	if _, err := os.Lstat(filepath.Join(filepath.Dir(k.Dir), "escaped")); err == nil {
		t.Error("a write outside the grants happened")
	}
	hb.Stop(t)
	k.Alive(t)
}
