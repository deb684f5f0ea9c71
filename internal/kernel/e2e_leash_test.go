package kernel

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/internal/sandbox"
	"github.com/shoalgo/shoal/proto"
)

// testPolicy loads policy TOML text written to a temp file.
func testPolicy(tb testing.TB, text string) *policy.Policy {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "policy.toml")
	if err := writeFile(path, text); err != nil {
		tb.Fatal(err)
	}
	p, err := policy.Load(path, "/nonexistent-home")
	if err != nil {
		tb.Fatalf("policy %s:\n%s\n%v", path, text, err)
	}
	return p
}

// startPolicyKernel starts a kernel under the policy text(dir, base):
// dir is the sessions' working directory, base its parent (the kernel's
// HOME), under which the tests make an "outside" directory.
func startPolicyKernel(t *testing.T, text func(dir, base string) string) *testKernel {
	t.Helper()
	return startKernelWith(t, func(cfg *Config) {
		cfg.Policy = testPolicy(t, text(cfg.Dir, filepath.Dir(cfg.Dir)))
	})
}

// base is the parent of the kernel's working directory.
func (k *testKernel) base() string { return filepath.Dir(k.dir) }

// fsPolicy grants principal reading, writing and deleting inside dir and
// nothing else; dynamic effects are left to the gate (opaque = "allow").
func fsPolicy(principal, extra string) func(dir, base string) string {
	return func(dir, base string) string {
		return fmt.Sprintf(`[principal.%q]
opaque = "allow"
%s
[principal.%q.fs]
read = [%q]
write = [%q]
delete = [%q]
`, principal, extra, principal, dir+"/**", dir+"/**", dir+"/**")
	}
}

// verdictOf decodes the data of a -32010/-32011 answer.
func verdictOf(t *testing.T, r *rpcResponse) testVerdict {
	t.Helper()
	var d struct {
		Verdict string `json:"verdict"`
		Effects []struct {
			Kind string `json:"kind"`
			Path string `json:"path"`
		} `json:"effects"`
		Reasons []string `json:"reasons"`
	}
	if err := json.Unmarshal(r.Error.Data, &d); err != nil {
		t.Fatalf("verdict data %s: %v", r.Error.Data, err)
	}
	v := testVerdict{Verdict: policy.Verdict(d.Verdict), Reasons: d.Reasons}
	for _, e := range d.Effects {
		v.Effects = append(v.Effects, leashEffect(e.Kind, e.Path))
	}
	return v
}

// wantGateDenied checks r is a RAISED language error with code "denied":
// the program ran and the gate refused one of its effects.
func wantGateDenied(t *testing.T, what string, r *rpcResponse) {
	t.Helper()
	if r.Error == nil || r.Error.Code != proto.CodeRaised {
		t.Fatalf("%s: got %s %+v, want RAISED denied", what, r.Result, r.Error)
	}
	var d struct {
		Code string `json:"code"`
	}
	json.Unmarshal(r.Error.Data, &d)
	if d.Code != "denied" {
		t.Fatalf("%s: raised %q (%s), want code denied", what, d.Code, r.Error.Message)
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// listDir names what dir holds, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestLeashFSGrantsInsideCwd: a principal whose grants are its working
// directory reads and writes there; a write outside is refused before
// anything runs (-32010, with the verdict, the plan's effects and the
// reasons), and one whose path the plan cannot know is refused by the gate
// while it runs, with the file untouched.
func TestLeashFSGrantsInsideCwd(t *testing.T) {
	k := startPolicyKernel(t, fsPolicy("agent:fs", ""))
	_, secret := k.token(t, "agent:fs", "worker")
	c := k.dial(t)
	c.attach("", secret)

	for _, src := range []string{"mkdir sub", "touch sub/a.txt", `"hello".save("sub/b.txt")`} {
		c.ok("exec", map[string]any{"src": src}, nil)
	}
	if data, err := os.ReadFile(filepath.Join(k.dir, "sub", "b.txt")); err != nil || string(data) != "hello" {
		t.Fatalf("save inside the grant: %q, %v", data, err)
	}
	var res execResult
	c.ok("exec", map[string]any{"src": `cat sub/b.txt`, "position": "value"}, &res)
	if !strings.Contains(res.Render, "hello") {
		t.Errorf("cat inside the grant = %q", res.Render)
	}
	c.ok("exec", map[string]any{"src": `ls sub`}, &res)
	if !strings.Contains(res.Render, "a.txt") {
		t.Errorf("ls inside the grant = %q", res.Render)
	}

	outside := filepath.Join(k.base(), "out.txt")
	r := c.fail("exec", map[string]any{"src": "touch ../out.txt"}, proto.CodeLeashDenied)
	v := verdictOf(t, r)
	if v.Verdict != policy.Deny || !slices.Contains(v.Effects, leashEffect("fs_write", outside)) || len(v.Reasons) == 0 {
		t.Errorf("verdict = %+v", v)
	}
	if exists(outside) {
		t.Fatal("a denied write outside the grant ran")
	}
	c.fail("exec", map[string]any{"src": "cat /etc/hostname"}, proto.CodeLeashDenied)
	c.fail("exec", map[string]any{"src": "touch ../out.txt", "async": true}, proto.CodeLeashDenied)

	// A path computed at run time: the plan cannot name it, so it passes
	// (opaque = "allow"); the gate refuses the write itself.
	c.ok("exec", map[string]any{"src": `let target = "../dyn.txt"`}, nil)
	wantGateDenied(t, "touch of a computed path", c.call("exec", map[string]any{"src": "touch (target)"}))
	if exists(filepath.Join(k.base(), "dyn.txt")) {
		t.Fatal("the gate let a write outside the grant through")
	}
	// Pure evaluation is always allowed.
	c.ok("exec", map[string]any{"src": "6 * 7"}, &res)
	if res.Render != "42" {
		t.Errorf("pure = %q", res.Render)
	}
}

// leashEffect is the comparable form of an effect in a verdict.
func leashEffect(kind, path string) leashEffectKey { return leashEffectKey{kind, path} }

type leashEffectKey struct{ kind, path string }

type testVerdict struct {
	Verdict policy.Verdict
	Effects []leashEffectKey
	Reasons []string
}

// TestLeashEscapes: ways a principal whose fs grants are its working
// directory might try to reach a file outside them through the kernel.
// Each is refused, before running (the plan names the path: -32010) or by
// the gate while it runs (the path is computed, or only the OS knows where
// it leads: RAISED denied), and the victim and its directory are
// untouched.
func TestLeashEscapes(t *testing.T) {
	k := startPolicyKernel(t, fsPolicy("agent:esc", `env_read = ["PATH"]`))
	outside := filepath.Join(k.base(), "outside")
	victim := filepath.Join(outside, "victim")
	if err := os.Symlink(outside, filepath.Join(k.dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(k.dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, secret := k.token(t, "agent:esc", "attacker")
	const (
		plan = proto.CodeLeashDenied
		gate = proto.CodeRaised
	)
	for _, tc := range []struct {
		name  string
		setup []string // run first, each must succeed
		src   string
		want  int
	}{
		{"function that deletes", []string{`fn wipe() { rm --permanent ../outside/victim }`}, `wipe()`, plan},
		{"function given the path", []string{`fn wipe(p) { rm --permanent (p) }`, `let v = "../outside/victim"`}, `wipe(v)`, gate},
		{"closure called later", []string{`let v = "../outside/victim"`, `let c = () => { rm --permanent (v) }`}, `c()`, gate},
		{"dynamic command name", []string{`let n = "r" + "m"`}, `run(n, "../outside/victim")`, gate},
		{"run of a literal", nil, `run("rm", "../outside/victim")`, plan},
		{"run of a computed target", []string{`let n = "/usr/bin/" + "rm"`}, `run(n, "` + victim + `")`, gate},
		{"interpreter block", nil, `sh { rm ../outside/victim }`, plan},
		{"with cwd outside", nil, `with cwd: "../outside" { rm --permanent victim }`, plan},
		{"with cwd computed", []string{`let d = "../" + "outside"`}, `with cwd: d { rm --permanent victim }`, gate},
		{"symlink inside pointing out", nil, `rm --permanent link/victim`, gate},
		{"write through a symlink", nil, `touch link/new`, gate},
		{"dot-dot traversal", nil, `rm --permanent sub/../../outside/victim`, plan},
		{"task", nil, `spawn { rm --permanent ../outside/victim }`, plan},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each case starts from an outside holding the victim alone.
			if err := os.RemoveAll(outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(outside, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := writeFile(victim, "keep me"); err != nil {
				t.Fatal(err)
			}
			c := k.dial(t)
			c.attach(strings.ReplaceAll(tc.name, " ", "-"), secret)
			for _, s := range tc.setup {
				c.ok("exec", map[string]any{"src": s}, nil)
			}
			r := c.call("exec", map[string]any{"src": tc.src})
			switch {
			case r.Error == nil:
				t.Errorf("%s: ran: %s", tc.src, r.Result)
			case tc.want == gate:
				wantGateDenied(t, tc.src, r)
			case r.Error.Code != tc.want:
				t.Errorf("%s: error %d %s (%s), want %d", tc.src, r.Error.Code, r.Error.Message, r.Error.Data, tc.want)
			}
			if data, err := os.ReadFile(victim); err != nil || string(data) != "keep me" {
				t.Fatalf("%s: the victim was touched: %q, %v", tc.src, data, err)
			}
			if got := listDir(t, outside); !slices.Equal(got, []string{"victim"}) {
				t.Fatalf("%s: outside now holds %v", tc.src, got)
			}
		})
	}
}

// TestLeashUnknownFlagRefused: plans read flags, so a flag a builtin does
// not declare is refused (arg_error) before the builtin touches anything,
// even inside the principal's grants, rather than ignored by the plan and
// honoured, or ignored, by the run.
func TestLeashUnknownFlagRefused(t *testing.T) {
	k := startPolicyKernel(t, fsPolicy("agent:flags", ""))
	keep := filepath.Join(k.dir, "keep.txt")
	if err := writeFile(keep, "keep me"); err != nil {
		t.Fatal(err)
	}
	_, secret := k.token(t, "agent:flags", "attacker")
	c := k.dial(t)
	c.attach("", secret)
	for _, src := range []string{"rm --permanent --frobnicate keep.txt", "rm --permanent -i keep.txt", "rm --permanent --interactive keep.txt", "mkdir --frobnicate made", "cp --no-clobber keep.txt copy.txt"} {
		r := c.call("exec", map[string]any{"src": src})
		if r.Error == nil || r.Error.Code != proto.CodeRaised {
			t.Fatalf("%s: got %s %+v, want RAISED arg_error", src, r.Result, r.Error)
		}
		var d struct {
			Code string `json:"code"`
		}
		json.Unmarshal(r.Error.Data, &d)
		if d.Code != "arg_error" || !strings.Contains(r.Error.Message, "unknown flag") {
			t.Errorf("%s: raised %q %q, want arg_error naming the unknown flag", src, d.Code, r.Error.Message)
		}
	}
	if data, err := os.ReadFile(keep); err != nil || string(data) != "keep me" {
		t.Fatalf("keep.txt was touched: %q, %v", data, err)
	}
	if got := listDir(t, k.dir); !slices.Equal(got, []string{"keep.txt"}) {
		t.Fatalf("the directory now holds %v", got)
	}
}

// TestLeashTaskCannotExceedItsParent: a spawned task and an on handler run
// on the session's gate: a delete their parent may not do fails inside
// them (the task's failure reaches wait, the handler catches "denied"),
// and nothing is touched.
func TestLeashTaskCannotExceedItsParent(t *testing.T) {
	k := startPolicyKernel(t, fsPolicy("agent:task", ""))
	victim := filepath.Join(k.base(), "victim")
	if err := writeFile(victim, "keep me"); err != nil {
		t.Fatal(err)
	}
	_, secret := k.token(t, "agent:task", "attacker")
	c := k.dial(t)
	c.attach("", secret)
	c.ok("exec", map[string]any{"src": `let v = "../victim"`}, nil)
	var res execResult
	c.ok("exec", map[string]any{"src": `let t = spawn { rm --permanent (v) }`}, &res)
	r := c.call("exec", map[string]any{"src": `t.wait()`})
	if r.Error == nil {
		t.Fatalf("the task's delete succeeded: %s", r.Result)
	}
	if !strings.Contains(r.Error.Message+string(r.Error.Data), "denied") {
		t.Errorf("task failure = %d %s (%s), want a denial", r.Error.Code, r.Error.Message, r.Error.Data)
	}
	if !exists(victim) {
		t.Fatal("a task deleted what its parent may not")
	}

	// An on handler runs on the same gate: it records the code of the
	// error its delete got.
	c.ok("exec", map[string]any{"src": "var seen = []\nvar h = on(\"user.x\", ev => { try { rm --permanent (v) } catch err { seen = seen + [err.code] } })\nh"}, nil)
	c.ok("exec", map[string]any{"src": `channel("user.x").emit(1)`}, nil)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.ok("exec", map[string]any{"src": "seen"}, &res)
		if res.Render != "[]" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the handler never ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(res.Render, "denied") {
		t.Errorf("the handler's delete: %s, want denied", res.Render)
	}
	if !exists(victim) {
		t.Fatal("a handler deleted what its session may not")
	}
}

// landlockOrSkip skips where this machine's kernel has no Landlock, after
// checking that attach then tells the truth: caps_enforced false.
func landlockOrSkip(t *testing.T, att map[string]any, needNet bool) {
	t.Helper()
	sup := sandbox.Probe()
	if sup.FS && (!needNet || sup.Net) {
		return
	}
	if att["caps_enforced"] != false {
		t.Errorf("no Landlock here, yet caps_enforced = %v", att["caps_enforced"])
	}
	t.Skipf("Landlock cannot enforce this here (ABI %d): %s", sup.ABI, sup.Reason)
}

// spawnPolicy lets principal run sh (and what sh needs to start) and read
// and write its working directory; nothing else of the filesystem.
func spawnPolicy(principal, extra string) func(dir, base string) string {
	return func(dir, base string) string {
		return fmt.Sprintf(`[principal.%q]
proc_spawn = ["sh"]
env_read = ["PATH"]
opaque = "allow"
%s
[principal.%q.fs]
read = [%q, "/usr/**", "/bin/**", "/lib/**", "/lib64/**", "/etc/ld.so.cache"]
write = [%q]
delete = [%q]
`, principal, extra, principal, dir+"/**", dir+"/**", dir+"/**")
	}
}

// TestLeashLandlockConfinesSpawnedPrograms: sh is allowed, so the plan
// and the gate let `sh -c 'cat /etc/shadow'` run; the file is not in the
// principal's fs grants, and it is the OS that refuses cat, a program the
// gate never saw. A file the test itself can read, outside the grants,
// is refused the same way, and one inside them is read.
func TestLeashLandlockConfinesSpawnedPrograms(t *testing.T) {
	k := startPolicyKernel(t, spawnPolicy("agent:ll", ""))
	_, secret := k.token(t, "agent:ll", "sandboxed")
	c := k.dial(t)
	att := c.attach("", secret)
	landlockOrSkip(t, att, false)
	caps := att["caps"].(map[string]any)
	if att["caps_enforced"] != true || caps["enforced"] != true || caps["tier"] != TierLandlock ||
		caps["dimensions"].(map[string]any)["fs"] != true {
		t.Errorf("attach caps = %v, caps_enforced = %v", caps, att["caps_enforced"])
	}
	secretFile := filepath.Join(k.base(), "secret.txt")
	if err := writeFile(secretFile, "top secret"); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(k.dir, "mine.txt"), "mine"); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile("/etc/shadow"); err != nil || len(data) == 0 {
		t.Logf("note: the test itself cannot read /etc/shadow (%v); the secret file below still shows the OS refusing", err)
	}
	for _, tc := range []struct {
		script string
		ok     bool
	}{
		{"cat /etc/shadow", false},
		{"cat " + secretFile, false},
		{"rm -f " + secretFile, false},
		{"cat mine.txt", true},
		{"echo new > made.txt", true},
	} {
		r := c.call("exec", map[string]any{"src": "sh -c " + shellQuote(tc.script), "position": "value"})
		if r.Error != nil {
			t.Fatalf("%s: %d %s (%s): the plan or the gate refused what only the OS should", tc.script, r.Error.Code, r.Error.Message, r.Error.Data)
		}
		var res struct {
			Value struct {
				OK  bool            `json:"ok"`
				Out json.RawMessage `json:"out"`
				Err json.RawMessage `json:"err"`
			} `json:"value"`
		}
		json.Unmarshal(r.Result, &res)
		if res.Value.OK != tc.ok {
			t.Errorf("%s: ok = %v (out %s, err %s), want %v", tc.script, res.Value.OK, res.Value.Out, res.Value.Err, tc.ok)
		}
		if !tc.ok && !strings.Contains(string(res.Value.Err), "ermission denied") {
			t.Errorf("%s: stderr %s, want a permission error", tc.script, res.Value.Err)
		}
		if strings.Contains(string(res.Value.Out), "top secret") || strings.Contains(string(res.Value.Out), "root:") {
			t.Fatalf("%s: the confined program read it: %s", tc.script, res.Value.Out)
		}
	}
	if data, err := os.ReadFile(secretFile); err != nil || string(data) != "top secret" {
		t.Fatalf("the secret file was touched: %q, %v", data, err)
	}
	if !exists(filepath.Join(k.dir, "made.txt")) {
		t.Error("a write inside the grants did not happen")
	}
}

// TestLeashLandlockConfinesConnect: a spawned program connecting to a
// loopback port outside the principal's net_connect is refused by the OS
// (the gate never sees a spawned program's connect); the granted port
// connects.
func TestLeashLandlockConfinesConnect(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self, _ = filepath.EvalSymlinks(self)
	var ports [2]int
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	granted, refused := ports[0], ports[1]
	k := startPolicyKernel(t, func(dir, base string) string {
		return fmt.Sprintf(`[principal."agent:net"]
proc_spawn = [%q]
net_connect = ["127.0.0.1:%d"]
opaque = "allow"
[principal."agent:net".fs]
read = [%q, %q, "/usr/**", "/lib/**", "/lib64/**", "/etc/**"]
`, self, granted, dir+"/**", filepath.Dir(self)+"/**")
	})
	_, secret := k.token(t, "agent:net", "sandboxed")
	c := k.dial(t)
	att := c.attach("", secret)
	landlockOrSkip(t, att, true)
	if dims := att["caps"].(map[string]any)["dimensions"].(map[string]any); dims["net"] != true {
		t.Errorf("dimensions = %v, want net enforced", dims)
	}
	dial := func(port int) string {
		t.Helper()
		var res execResult
		c.ok("exec", map[string]any{"src": fmt.Sprintf("^%s %s 127.0.0.1:%d", self, netHelperArg, port), "position": "value"}, &res)
		return res.Render
	}
	if out := dial(granted); !strings.Contains(out, "connected") {
		t.Fatalf("the granted port: %q", out)
	}
	if out := dial(refused); strings.Contains(out, "connected") || !strings.Contains(out, "permission denied") {
		t.Errorf("a port outside net_connect: %q, want the OS's refusal", out)
	}
}

// netHelperArg makes the test binary dial its next argument over TCP and
// print the result (TestMain).
const netHelperArg = "shoal-kernel-test-dial"

// netHelper is the test binary's dialing role.
func netHelper(addr string) int {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		fmt.Println("dial:", err)
		return 1
	}
	c.Close()
	fmt.Println("connected")
	return 0
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestLeashSessionEnvironment: a principal's session starts from the
// kernel's variables its env_read grants allow; the others are withheld
// from its code and from every program it runs, and session.env names
// them without values. Without env_read, granted is false.
func TestLeashSessionEnvironment(t *testing.T) {
	k := startKernelWith(t, func(cfg *Config) {
		cfg.Env = append(cfg.Env, "SHOAL_SECRET_TOKEN=hunter2")
		cfg.Policy = testPolicy(t, `[principal."agent:reader"]
env_read = ["HOME"]
proc_spawn = ["/usr/bin/env"]
[principal."agent:reader".fs]
read = ["/usr/**", "/lib/**", "/lib64/**", "/etc/ld.so.cache"]

[principal."agent:writer"]
env_write = ["A", "B"]
`)
	})
	_, reader := k.token(t, "agent:reader", "r")
	_, writer := k.token(t, "agent:writer", "w")

	c := k.dial(t)
	att := c.attach("", reader)
	var res envResult
	c.ok("session.env", nil, &res)
	if !res.Granted || strings.Join(res.Names, ",") != "HOME,PATH,SHOAL_SECRET_TOKEN" ||
		len(res.Env) != 1 || res.Env["HOME"] != k.base() {
		t.Errorf("reader session.env = %+v", res)
	}
	if att["env_hash"] != envHash([]string{"HOME=" + k.base()}) {
		t.Errorf("env_hash = %v, want the digest of HOME alone", att["env_hash"])
	}
	r := c.fail("exec", map[string]any{"src": "env.SHOAL_SECRET_TOKEN"}, proto.CodeLeashDenied)
	if strings.Contains(string(r.Error.Data)+r.Error.Message, "hunter2") {
		t.Fatal("the refusal leaked the value")
	}
	if _, err := os.Stat("/usr/bin/env"); err == nil {
		r := c.call("exec", map[string]any{"src": "^/usr/bin/env", "position": "value"})
		if r.Error != nil {
			t.Fatalf("env: %d %s (%s)", r.Error.Code, r.Error.Message, r.Error.Data)
		}
		if out := string(r.Result); strings.Contains(out, "hunter2") || strings.Contains(out, "PATH=") || !strings.Contains(out, "HOME=") {
			t.Errorf("a spawned program's environment: %s", out)
		}
	}

	w := k.dial(t)
	w.attach("", writer)
	w.ok("exec", map[string]any{"src": `env.B = "2"` + "\n" + `env.A = "1"`}, nil)
	res = envResult{}
	w.ok("session.env", nil, &res)
	if res.Granted || res.Env != nil || strings.Join(res.Names, ",") != "A,B,HOME,PATH,SHOAL_SECRET_TOKEN" {
		t.Errorf("writer session.env = %+v", res)
	}
}

// TestLeashAttachCapsTellTheTruth: the owner's unrestricted session is
// not sandboxed (enforced false, tier none) though the machine could;
// a principal with fs grants is, per dimension, where Landlock can; with
// Landlock reported absent, nothing is enforced and a hermetic principal
// whose grants restrict fs fails to attach, typed, with the connection
// open and unattached.
func TestLeashAttachCapsTellTheTruth(t *testing.T) {
	k := startPolicyKernel(t, func(dir, base string) string {
		return fsPolicy("agent:caps", `hermetic = false`)(dir, base) + fmt.Sprintf(`
[principal."agent:hermetic"]
hermetic = true
[principal."agent:hermetic".fs]
read = [%q]
`, dir+"/**")
	})
	sup := sandbox.Probe()
	avail := TierNone
	if sup.FS {
		avail = TierLandlock
	}
	owner := k.dial(t).attach("", "")
	caps := owner["caps"].(map[string]any)
	if owner["caps_enforced"] != false || caps["enforced"] != false || caps["tier"] != TierNone ||
		caps["available_tier"] != avail || caps["opaque"] != "allow" {
		t.Errorf("owner caps = %v, caps_enforced %v", caps, owner["caps_enforced"])
	}

	_, capsTok := k.token(t, "agent:caps", "p", "fs.read", "fs.write")
	att := k.dial(t).attach("", capsTok)
	caps = att["caps"].(map[string]any)
	dims := caps["dimensions"].(map[string]any)
	if caps["available_tier"] != avail || caps["opaque"] != "allow" || caps["policy_principal"] != "agent:caps" ||
		dims["fs"] != sup.FS || dims["net"] != sup.Net || att["caps_enforced"] != sup.FS || caps["enforced"] != sup.FS {
		t.Errorf("agent caps = %v, caps_enforced %v (probe %+v)", caps, att["caps_enforced"], sup)
	}
	if tc, _ := json.Marshal(caps["token_caps"]); string(tc) != `["fs.read","fs.write"]` {
		t.Errorf("token_caps = %s", tc)
	}

	restore := sandbox.OverrideSupport(sandbox.Support{Reason: "test: no Landlock"})
	defer restore()
	att = k.dial(t).attach("nolandlock", capsTok)
	caps = att["caps"].(map[string]any)
	if att["caps_enforced"] != false || caps["enforced"] != false || caps["tier"] != TierNone || caps["available_tier"] != TierNone {
		t.Errorf("without Landlock: caps = %v, caps_enforced %v", caps, att["caps_enforced"])
	}
	_, hermTok := k.token(t, "agent:hermetic", "p")
	c := k.dial(t)
	r := c.fail("session.attach", map[string]any{"token": hermTok}, proto.CodeLeashDenied)
	var d struct{ Code, Dimension string }
	json.Unmarshal(r.Error.Data, &d)
	if d.Code != "hermetic_unenforceable" || d.Dimension != "fs" {
		t.Errorf("hermetic attach refusal data = %s", r.Error.Data)
	}
	c.fail("exec", map[string]any{"src": "1"}, proto.CodeNotAttached)
	restore()
	c.attach("", hermTok) // the same connection attaches once it can be enforced
}

// TestLeashTokenCapsNarrowTheSession: a token's caps narrow what policy
// grants its principal, and a session keeps only what every attachment
// that used it may do: a narrower token narrows the session it joins, for
// the broader one too.
func TestLeashTokenCapsNarrowTheSession(t *testing.T) {
	k := startPolicyKernel(t, fsPolicy("agent:narrow", ""))
	_, broad := k.token(t, "agent:narrow", "p")
	_, readOnly := k.token(t, "agent:narrow", "p", "fs.read")

	ro := k.dial(t)
	ro.attach("solo", readOnly)
	ro.ok("exec", map[string]any{"src": "ls"}, nil)
	ro.fail("exec", map[string]any{"src": "touch a.txt"}, proto.CodeLeashDenied)

	b := k.dial(t)
	b.attach("shared", broad)
	b.ok("exec", map[string]any{"src": "touch b.txt"}, nil)
	k.dial(t).attach("shared", readOnly)
	b.fail("exec", map[string]any{"src": "touch c.txt"}, proto.CodeLeashDenied)
	if exists(filepath.Join(k.dir, "a.txt")) || exists(filepath.Join(k.dir, "c.txt")) || !exists(filepath.Join(k.dir, "b.txt")) {
		t.Errorf("files: %v", listDir(t, k.dir))
	}
}

// TestLeashApprovalRequired: an effect inside the grants of a principal
// with auto_apply = "never", or one the plan cannot bound under opaque =
// "ask", is -32011 APPROVAL_REQUIRED with the verdict data, and nothing
// runs; pure evaluation still runs.
func TestLeashApprovalRequired(t *testing.T) {
	k := startPolicyKernel(t, func(dir, base string) string {
		return fmt.Sprintf(`[principal."agent:careful"]
auto_apply = "never"
[principal."agent:careful".fs]
write = [%q]
read = [%q]

[principal."agent:asker"]
opaque = "ask"
[principal."agent:asker".fs]
write = [%q]
read = [%q]
`, dir+"/**", dir+"/**", dir+"/**", dir+"/**")
	})
	_, careful := k.token(t, "agent:careful", "p")
	_, asker := k.token(t, "agent:asker", "p")

	c := k.dial(t)
	c.attach("", careful)
	r := c.fail("exec", map[string]any{"src": "touch a.txt"}, proto.CodeApprovalRequired)
	if v := verdictOf(t, r); v.Verdict != policy.ApprovalRequired || !slices.Contains(v.Effects, leashEffect("fs_write", filepath.Join(k.dir, "a.txt"))) || len(v.Reasons) == 0 {
		t.Errorf("verdict = %+v", v)
	}
	c.ok("exec", map[string]any{"src": "1 + 1"}, nil)

	a := k.dial(t)
	a.attach("", asker)
	a.ok("exec", map[string]any{"src": `let f = "b" + ".txt"`}, nil)
	r = a.fail("exec", map[string]any{"src": "touch (f)"}, proto.CodeApprovalRequired)
	if v := verdictOf(t, r); v.Verdict != policy.ApprovalRequired {
		t.Errorf("opaque ask verdict = %+v", v)
	}
	a.ok("exec", map[string]any{"src": "touch c.txt"}, nil)
	if exists(filepath.Join(k.dir, "a.txt")) || exists(filepath.Join(k.dir, "b.txt")) || !exists(filepath.Join(k.dir, "c.txt")) {
		t.Errorf("files: %v", listDir(t, k.dir))
	}
}
