package kernel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// TestAttachCwd: an attach with cwd moves the session there (the exec
// answer says where the session is); one the principal cannot enter
// leaves the session where it was and says why; exec's display asks for
// the person's style of statement output.
func TestAttachCwd(t *testing.T) {
	k := startKernel(t)
	other := t.TempDir()
	c := k.dial(t)
	var res proto.AttachResult
	c.ok("session.attach", map[string]any{"cwd": other}, &res)
	if res.CWD.Display != other || res.CwdRefused != "" {
		t.Fatalf("attach with cwd %s: %+v", other, res)
	}
	var ex execResult
	c.ok("exec", map[string]any{"src": "pwd"}, &ex)
	if ex.Cwd != other || !strings.Contains(string(ex.Value), other) {
		t.Errorf("exec after the attach: %s, cwd %q", ex.Value, ex.Cwd)
	}
	file := filepath.Join(other, "f")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{file, "relative/dir", filepath.Join(other, "missing")} {
		res = proto.AttachResult{}
		c.ok("session.attach", map[string]any{"cwd": bad}, &res)
		if res.CWD.Display != other || res.CwdRefused == "" {
			t.Errorf("attach with cwd %q: %+v", bad, res)
		}
	}
	// The statement output of an exec asking for the person's style: a
	// datetime to the second; without it, all of it.
	when := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	if err := os.Chtimes(file, when, when); err != nil {
		t.Fatal(err)
	}
	sub := k.dial(t)
	sub.attach("", "")
	for _, tc := range []struct {
		display any
		want    string
	}{{map[string]any{"time_precision_ns": int64(time.Second), "fold_names": true}, "03:04:05Z"}, {nil, "03:04:05.123456789Z"}} {
		p := map[string]any{"src": "stat f; 1"}
		if tc.display != nil {
			p["display"] = tc.display
		}
		c.ok("exec", p, &ex)
		var evs struct {
			Events []struct {
				Payload json.RawMessage `json:"payload"`
			} `json:"events"`
		}
		c.ok("events.read", map[string]any{"channel": "render", "limit": 100}, &evs)
		found := false
		for _, e := range evs.Events {
			var o struct {
				Ref    string `json:"ref"`
				Output string `json:"output"`
			}
			if json.Unmarshal(e.Payload, &o) == nil && o.Ref == ex.Ref && o.Output != "" {
				found = true
				if !strings.Contains(o.Output, "2026-01-02T"+tc.want+"\n") {
					t.Errorf("display %v: output %q, want the time as %s", tc.display, o.Output, tc.want)
				}
			}
		}
		if !found {
			t.Errorf("display %v: no output event for %s", tc.display, ex.Ref)
		}
	}
}

// TestTokenSessionStartsWhereItReads: a token principal that may not read
// the kernel's directory starts in the first directory its read grants
// start at, and rm there moves into the kernel's trash for it with no
// grant naming any trash; explain names that trash.
func TestTokenSessionStartsWhereItReads(t *testing.T) {
	state := t.TempDir()
	proj := t.TempDir()
	if err := os.WriteFile(filepath.Join(proj, "doomed"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	k := startKernelWith(t, func(cfg *Config) {
		cfg.StateDir = state
		cfg.Policy = testPolicy(t, "[principal.\"agent:p\"]\nfs.read = [\""+proj+"/**\"]\nfs.delete = [\""+proj+"/**\"]\n")
	})
	_, secret := k.token(t, "agent:p", "p")
	c := k.dial(t)
	res := c.attach("", secret)
	if cwd, _ := res["cwd"].(map[string]any); cwd["display"] != proj {
		t.Fatalf("the token session starts in %v, want %s", res["cwd"], proj)
	}
	var plan struct {
		Effects []struct {
			Kind string `json:"kind"`
			Path string `json:"path"`
		} `json:"effects"`
	}
	c.ok("explain", map[string]any{"src": "rm doomed"}, &plan)
	realState, _ := filepath.EvalSymlinks(state)
	trash := ""
	for _, e := range plan.Effects {
		if e.Kind == "fs_write" {
			trash = e.Path
		}
	}
	if !strings.HasPrefix(trash, filepath.Join(realState, "trash")+"/") {
		t.Errorf("explain rm names the trash %q, want one under %s/trash", trash, realState)
	}
	var ex execResult
	c.ok("exec", map[string]any{"src": "rm doomed"}, &ex)
	if _, err := os.Stat(filepath.Join(proj, "doomed")); !os.IsNotExist(err) {
		t.Errorf("doomed is still there: %v", err)
	}
	// The session cannot read its trash back, nor write beside it.
	c.fail("exec", map[string]any{"src": "ls '" + trash + "'"}, proto.CodeLeashDenied)
	c.fail("exec", map[string]any{"src": "save '" + filepath.Join(realState, "x") + "' 1"}, proto.CodeLeashDenied)
}
