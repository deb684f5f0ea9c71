package kernel

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/proto"
)

// contractMethods are the method names of the kernel contract.
var contractMethods = []string{
	"kernel.info", "session.attach", "session.env", "session.reef", "parse", "complete", "explain",
	"exec", "value.get", "blob.get",
	"task.list", "task.get", "task.await", "task.cancel", "task.suspend", "task.resume", "task.output",
	"plan.get", "plan.list", "plan.apply", "cap.request", "journal.query",
	"pty.open", "pty.send", "pty.read", "pty.resize", "pty.close", "pty.list",
	"events.read", "events.publish", "events.subscribe", "events.unsubscribe",
}

var preAttach = map[string]bool{"session.attach": true, "parse": true, "complete": true, "kernel.info": true}

func TestMethodTableCoversContract(t *testing.T) {
	for _, name := range contractMethods {
		m, ok := methods[name]
		if !ok {
			t.Errorf("method table lacks %s", name)
			continue
		}
		if m.needsAttach == preAttach[name] {
			t.Errorf("%s: needsAttach = %v", name, m.needsAttach)
		}
		if m.needsAttach == proto.AllowedBeforeAttach(name) {
			t.Errorf("%s: table disagrees with proto.AllowedBeforeAttach", name)
		}
	}
	if len(methods) != len(contractMethods) {
		t.Errorf("method table has %d entries, contract %d", len(methods), len(contractMethods))
	}
}

func TestAttachmentMatrix(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	for _, name := range contractMethods {
		if preAttach[name] {
			continue
		}
		c.fail(name, map[string]any{}, proto.CodeNotAttached)
	}
	// The four pre-attach methods are served.
	c.ok("kernel.info", nil, nil)
	c.ok("parse", map[string]any{"src": "1"}, nil)
	var comp proto.CompleteResult
	c.ok("complete", map[string]any{"src": "l"}, &comp)
	if len(comp.Candidates) == 0 {
		t.Error("complete before attach offered nothing")
	}
	// Unknown names are not found, attached or not.
	c.fail("no.such", nil, proto.CodeMethodNotFound)
	c.attach("", "")
	for _, name := range contractMethods {
		if methods[name].handle != nil || preAttach[name] {
			continue
		}
		c.fail(name, map[string]any{}, proto.CodeMethodNotFound)
	}
}

func TestKernelInfo(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	var info proto.KernelInfo
	c.ok("kernel.info", nil, &info)
	if info.Version != "test" || info.Protocol != ProtocolRevision || info.ASTVersion != 2 {
		t.Errorf("info = %+v", info)
	}
	if len(info.Methods) != len(contractMethods) {
		t.Errorf("%d methods listed", len(info.Methods))
	}
	for _, m := range info.Methods {
		if m.RequiresAttach == preAttach[m.Name] {
			t.Errorf("%s requires_attach = %v", m.Name, m.RequiresAttach)
		}
	}
	if !info.Features["exec.run"] || !info.Features["pty"] || !info.Features["complete"] || !info.Features["explain"] || !info.Features["plans"] || !info.Features["exec.plan"] {
		t.Errorf("features = %v", info.Features)
	}
}

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

func TestAttachWithoutToken(t *testing.T) {
	k := startKernel(t)
	c := k.dial(t)
	res := c.attach("", "")
	local := "uid:" + strconv.Itoa(k.srv.euid)
	if res["session"] != "default" || res["principal"] != local {
		t.Errorf("session/principal = %v/%v", res["session"], res["principal"])
	}
	caps := res["caps"].(map[string]any)
	if caps["profile"] != "local-human" || caps["policy_principal"] != local {
		t.Errorf("caps = %v", caps)
	}
	for _, f := range []string{"enforced", "tier", "available_tier", "token_caps", "opaque"} {
		if _, ok := caps[f]; !ok {
			t.Errorf("caps lacks %s", f)
		}
	}
	if cwd := res["cwd"].(map[string]any); cwd["display"] != k.dir {
		t.Errorf("cwd = %v, want %s", cwd, k.dir)
	}
	if h, _ := res["env_hash"].(string); !hex64.MatchString(h) || h != envHash([]string{"PATH=/usr/bin:/bin", "HOME=" + k.dir[:len(k.dir)-len("/work")]}) {
		t.Errorf("env_hash = %v", res["env_hash"])
	}
	if res["ast_version"] != float64(2) {
		t.Errorf("ast_version = %v", res["ast_version"])
	}
	ed := res["elide_defaults"].(map[string]any)
	if ed["max_bytes"] != float64(8192) || ed["max_rows"] != float64(100) || ed["max_items"] != float64(500) || ed["hard_cap"] != float64(65536) {
		t.Errorf("elide_defaults = %v", ed)
	}
	if _, ok := res["caps_enforced"].(bool); !ok {
		t.Errorf("caps_enforced = %v", res["caps_enforced"])
	}
	if ch, _ := res["channels"].([]any); len(ch) != 4 {
		t.Errorf("channels = %v", res["channels"])
	}
}

func TestEnvHashIsOrderIndependentDigest(t *testing.T) {
	a := envHash([]string{"A=1", "B=2"})
	if a != envHash([]string{"B=2", "A=1"}) {
		t.Error("env hash depends on order")
	}
	if a == envHash([]string{"A=1", "B=3"}) || a == envHash([]string{"A=1B=2"}) {
		t.Error("env hash collides")
	}
	if !hex64.MatchString(a) {
		t.Errorf("env hash %q", a)
	}
}

func TestAttachWithToken(t *testing.T) {
	k := startKernel(t)
	id, secret := k.token(t, "agent:reviewer", "reviewer", "fs.read", "proc.spawn")
	c := k.dial(t)
	res := c.attach("work", secret)
	if res["session"] != "work" || res["principal"] != "agent:reviewer" {
		t.Errorf("attach = %v", res)
	}
	caps := res["caps"].(map[string]any)
	if caps["profile"] != "reviewer" || caps["policy_principal"] != "agent:reviewer" {
		t.Errorf("caps = %v", caps)
	}
	if tc, _ := json.Marshal(caps["token_caps"]); string(tc) != `["fs.read","proc.spawn"]` {
		t.Errorf("token_caps = %s", tc)
	}
	// Pure evaluation works; a principal the policy does not name is
	// denied every effect, before anything runs.
	var res2 execResult
	c.ok("exec", map[string]any{"src": "6 * 7"}, &res2)
	if res2.Render != "42" {
		t.Errorf("render %q", res2.Render)
	}
	c.fail("exec", map[string]any{"src": "ls"}, proto.CodeLeashDenied)
	// The kernel's environment is not readable to other principals.
	if r := c.call("exec", map[string]any{"src": "env.HOME"}); r.Error == nil && strings.Contains(string(r.Result), k.dir[:len(k.dir)-len("/work")]) {
		t.Errorf("env.HOME leaked to a token principal: %s", r.Result)
	}
	if res["env_hash"] != envHash(nil) {
		t.Errorf("token session env_hash = %v, want the empty environment's", res["env_hash"])
	}

	// Revocation is noticed without restart.
	if err := auth.Open(k.store).Revoke(id); err != nil {
		t.Fatal(err)
	}
	c2 := k.dial(t)
	c2.fail("session.attach", map[string]any{"token": secret}, proto.CodeAuthFailed)
	c2.fail("exec", map[string]any{"src": "1"}, proto.CodeNotAttached)
}

func TestAttachFailureLeavesConnectionUnattached(t *testing.T) {
	k := startKernel(t)
	k.token(t, "agent:x", "p")
	c := k.dial(t)
	c.fail("session.attach", map[string]any{"token": "not-a-token"}, proto.CodeAuthFailed)
	c.fail("exec", map[string]any{"src": "1"}, proto.CodeNotAttached)
	c.fail("session.attach", map[string]any{"session": 5}, proto.CodeInvalidParams)
	c.fail("session.attach", map[string]any{"session": ""}, proto.CodeInvalidParams)
	c.fail("exec", map[string]any{"src": "1"}, proto.CodeNotAttached)
	// An attached connection whose re-attach fails keeps its attachment.
	c.attach("s", "")
	c.fail("session.attach", map[string]any{"token": "bogus"}, proto.CodeAuthFailed)
	c.ok("exec", map[string]any{"src": "1"}, nil)
}

func TestUnreadableStoreFailsClosed(t *testing.T) {
	k := startKernel(t)
	if err := writeFile(k.store, "{not json"); err != nil {
		t.Fatal(err)
	}
	c := k.dial(t)
	c.fail("session.attach", map[string]any{"token": "shoal_anything"}, proto.CodeAuthFailed)
	c.attach("", "") // tokenless attach is unaffected
}

func TestRefsIsolatedAcrossSessionsAndPrincipals(t *testing.T) {
	k := startKernel(t)
	_, secret := k.token(t, "agent:other", "p")

	owner := k.dial(t)
	owner.attach("shared", "")
	var res execResult
	owner.ok("exec", map[string]any{"src": "let secret_v = 41\nsecret_v + 1"}, &res)
	if res.Ref != "out:1" {
		t.Fatalf("ref %s", res.Ref)
	}

	// Same name, other principal: a separate session.
	other := k.dial(t)
	other.attach("shared", secret)
	other.fail("value.get", map[string]any{"ref": "out:1"}, proto.CodeUnknownRef)
	// Unbound there, the name is a command, which that principal may not run.
	other.fail("exec", map[string]any{"src": "secret_v"}, proto.CodeLeashDenied)

	// Same principal, other name: a separate session.
	elsewhere := k.dial(t)
	elsewhere.attach("elsewhere", "")
	elsewhere.fail("value.get", map[string]any{"ref": "out:1"}, proto.CodeUnknownRef)

	// Same principal and name on another connection: the same session.
	again := k.dial(t)
	again.attach("shared", "")
	var got proto.ValueJSON
	again.ok("value.get", map[string]any{"ref": "out:1"}, &got)
	if string(got.Value) != `{"$":"int","v":42}` {
		t.Errorf("value = %s", got.Value)
	}
	// The other principal's own out:1 is its own value, not ours (its
	// refused exec ran nothing and stored nothing).
	other.ok("exec", map[string]any{"src": "7"}, nil)
	var theirs proto.ValueJSON
	other.ok("value.get", map[string]any{"ref": "out:1"}, &theirs)
	if string(theirs.Value) != `{"$":"int","v":7}` {
		t.Error("principal saw another principal's value")
	}
}

func TestSessionEnv(t *testing.T) {
	k := startKernel(t)
	owner := k.dial(t)
	owner.attach("", "")
	var res envResult
	owner.ok("session.env", map[string]any{}, &res)
	if !res.Granted || strings.Join(res.Names, ",") != "HOME,PATH" || res.Env["PATH"] != "/usr/bin:/bin" {
		t.Errorf("owner env = %+v", res)
	}
	// A variable set in the session shows up.
	owner.ok("exec", map[string]any{"src": `env.SHOAL_T = "1"`}, nil)
	owner.ok("session.env", nil, &res)
	if res.Env["SHOAL_T"] != "1" {
		t.Errorf("after env.SHOAL_T = 1: %+v", res)
	}

	var reef reefResult
	owner.ok("session.reef", map[string]any{}, &reef)
	if reef.ActiveScope != k.dir || reef.Bindings == nil || len(reef.Bindings) != 0 {
		t.Errorf("session.reef before any command = %+v", reef)
	}
	owner.ok("exec", map[string]any{"src": "sh { exit 0 }"}, nil)
	owner.ok("session.reef", nil, &reef)
	if len(reef.Bindings) != 1 {
		t.Fatalf("session.reef after sh = %+v", reef)
	}
	if b := reef.Bindings[0]; b.Tool != "sh" || b.Provider != "system" || b.Scope != k.dir || !filepath.IsAbs(b.Path) {
		t.Errorf("sh binding = %+v", b)
	}

	_, secret := k.token(t, "agent:x", "p")
	other := k.dial(t)
	other.attach("", secret)
	res = envResult{}
	other.ok("session.env", nil, &res)
	if res.Granted || res.Env != nil || strings.Join(res.Names, ",") != "HOME,PATH" {
		t.Errorf("token principal env = %+v", res)
	}
}
