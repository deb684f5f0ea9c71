package policy_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/internal/stdlib"
	"github.com/shoalgo/shoal/internal/value"
)

// escapeWorld is a temp tree with a granted directory and an outside one
// holding files a confined principal must not touch, plus symlinks inside
// the grant that point out.
type escapeWorld struct {
	root, grant, outside string
}

func newEscapeWorld(t *testing.T) escapeWorld {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := escapeWorld{root: root, grant: filepath.Join(root, "grant"), outside: filepath.Join(root, "outside")}
	for _, d := range []string{filepath.Join(w.grant, "sub"), filepath.Join(w.outside, "tree", "x"), filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(w.outside, "victim"):         "victim",
		filepath.Join(w.outside, "secret"):         "secret",
		filepath.Join(w.outside, "tree", "x", "y"): "y",
		filepath.Join(w.outside, "lib.shl"):        "let v = 1",
		filepath.Join(w.grant, "mine.txt"):         "mine",
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"link":    filepath.Join(w.outside, "victim"),
		"dirlink": w.outside,
		"rel":     "../outside/secret",
	} {
		if err := os.Symlink(target, filepath.Join(w.grant, link)); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// grants are a principal's whose fs grants are the grant directory only
// (read, write, delete) and which may spawn nothing, read no clock and no
// system facts.
func (w escapeWorld) grants(t *testing.T) *policy.Grants {
	t.Helper()
	doc := fmt.Sprintf(`[principal."agent"]
fs.read = [%[1]q]
fs.write = [%[1]q]
fs.delete = [%[1]q]
`, w.grant+"/**")
	p, err := policy.Parse([]byte(doc), w.root)
	if err != nil {
		t.Fatal(err)
	}
	return p.For("agent", false)
}

// session is an evaluator in the grant directory gated by g. Its trash
// (rm without --permanent) is outside the grant.
func (w escapeWorld) session(t *testing.T, g *policy.Grants) *eval.Interp {
	t.Helper()
	in, err := eval.New(eval.Options{
		Registry: stdlib.Registry(),
		Host:     host.NewOS(g.Authorizer()),
		Dir:      w.grant,
		Env:      []string{"PATH=/usr/bin:/bin", "HOME=" + w.grant, "TMPDIR=" + filepath.Join(w.root, "tmp")},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Close)
	return in
}

// snapshot describes every entry under root (evaltest.Snapshot).
func snapshot(t *testing.T, root string) map[string]string { return evaltest.Snapshot(t, root) }

func errCode(err error) string {
	var ve *value.Error
	if errors.As(err, &ve) {
		return ve.Code
	}
	return ""
}

// TestEscapeAttempts is the in-process escape suite: each program tries to
// do, by some indirect route, what the principal's grants do not allow.
// Every one must fail with `denied` and leave the whole tree (outside and
// inside the grant) exactly as it was. Each also runs as a control under
// the owner's grants (everything), where it must succeed: the refusal is
// the policy's, not a mistake in the program.
func TestEscapeAttempts(t *testing.T) {
	cases := []struct {
		name  string
		setup string // run first, must succeed (may be "")
		src   string // must be denied
		// control replaces src in the control run ("" means src).
		control string
	}{
		{"function deletes outside", `fn d(p) { rm --permanent (p) }`, `d("{out}/victim")`, ``},
		{"function writes outside", `fn w(p) { "pwned".save(p) }`, `w("{out}/victim")`, ``},
		{"closure called later", `let k = () => { rm --permanent "{out}/victim" }`, `k()`, ``},
		{"closure passed to a method", ``, `[1].each(x => { "pwned".save("{out}/victim") })`, ``},
		{"dynamic command name", `let c = "r" + "m"`, `run(c, "-f", "{out}/victim")`, ``},
		{"run", ``, `run("sh", "-c", "rm -f {out}/victim")`, ``},
		{"sh block", ``, `sh { rm -f {out}/victim }`, ``},
		{"external command by path", ``, `/bin/rm -f {out}/victim`, ``},
		{"absolute program", ``, `/bin/sh -c "rm -f {out}/victim"`, ``},
		{"with cwd outside", ``, `with cwd: "{out}" { rm --permanent victim }`, ``},
		{"with cwd outside reads", ``, `with cwd: "{out}" { cat secret }`, ``},
		{"symlink write through", ``, `"pwned".save("link")`, ``},
		{"symlink read", ``, `cat link`, ``},
		{"relative symlink read", ``, `cat rel`, ``},
		{"symlinked dir delete", ``, `rm --permanent dirlink/victim`, ``},
		{"symlinked dir copy out", ``, `cp dirlink/secret stolen.txt`, ``},
		{"symlinked dir tree copy", ``, `cp -r dirlink/tree stolen`, ``},
		{"dotdot read", ``, `cat ../outside/secret`, ``},
		{"dotdot delete", ``, `rm --permanent sub/../../outside/victim`, ``},
		{"dotdot write", ``, `"pwned".save("sub/../../outside/new")`, ``},
		{"dotdot move out", ``, `mv mine.txt ../outside/mine.txt`, ``},
		{"trash outside grant", ``, `rm mine.txt`, ``}, // rm without --permanent moves to a trash outside the grants
		{"task", ``, `(spawn { rm --permanent "{out}/victim" }).await()`, ``},
		{"task through a closure", `let k = () => { "pwned".save("{out}/victim") }`, `(spawn { k() }).await()`, ``},
		{"on handler", `let h = on(channel("user.x"), ev => { rm --permanent "{out}/victim" })
channel("user.x").emit(1)`, `h.await()`,
			`while path("{out}/victim").exists() { sleep 1ms }`},
		{"source outside", ``, `source "{out}/lib.shl"`, ``},
		{"sourced file inside deletes outside", `"rm --permanent {out}/victim".save("evil.shl")`, `source evil.shl`, ``},
		{"parallel branch", ``, `parallel(() => { rm --permanent "{out}/victim" })`, ``},
		{"nested task in a handler", `let h = on(channel("user.y"), ev => { (spawn { "pwned".save("{out}/victim") }).await() })
channel("user.y").emit(1)`, `h.await()`, `while path("{out}/victim").read() != "pwned" { sleep 1ms }`},
		{"clock", ``, `now()`, ``},
		{"system fact", ``, `os.hostname()`, ``},
	}
	for _, c := range cases {
		fill := func(w escapeWorld, s string) string { return strings.ReplaceAll(s, "{out}", w.outside) }
		t.Run(c.name+"/control", func(t *testing.T) {
			w := newEscapeWorld(t)
			in := w.session(t, policy.Everything("owner"))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			src := c.control
			if src == "" {
				src = c.src
			}
			for _, s := range []string{c.setup, src} {
				if _, err := in.Eval(ctx, fill(w, s)); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
		})
		t.Run(c.name, func(t *testing.T) {
			w := newEscapeWorld(t)
			in := w.session(t, w.grants(t))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if c.setup != "" {
				if _, err := in.Eval(ctx, fill(w, c.setup)); err != nil {
					t.Fatalf("setup: %v", err)
				}
			}
			before := snapshot(t, w.root)
			_, err := in.Eval(ctx, fill(w, c.src))
			if code := errCode(err); code != "denied" {
				t.Fatalf("want denied, got %q (%v)", code, err)
			}
			in.Close()
			_ = in.WaitTasks(ctx)
			after := snapshot(t, w.root)
			for p, d := range before {
				if after[p] != d {
					t.Errorf("%s changed: %q -> %q", p, d, after[p])
				}
			}
			for p := range after {
				if _, ok := before[p]; !ok {
					t.Errorf("%s appeared", p)
				}
			}
		})
	}
}

// TestInsideGrantWorks: the same principal reads, writes, lists, copies
// and deletes inside its grant, a symlink that stays inside included.
func TestInsideGrantWorks(t *testing.T) {
	w := newEscapeWorld(t)
	if err := os.Symlink("mine.txt", filepath.Join(w.grant, "inlink")); err != nil {
		t.Fatal(err)
	}
	in := w.session(t, w.grants(t))
	ctx := context.Background()
	steps := []struct{ src, want string }{
		{`"hello".save("new.txt")`, ""},
		{`cat new.txt`, "hello"},
		{`cat inlink`, "mine"},
		{`"more".append("new.txt")`, ""},
		{`cat new.txt`, "hellomore"},
		{`mkdir -p d/e`, ""},
		{`cp -r d d2`, ""},
		{`mv new.txt d/moved.txt`, ""},
		{`cat d/moved.txt`, "hellomore"},
		{`(spawn { cat mine.txt }).await()`, "mine"},
		{`with cwd: "sub" { "x".save("in-sub.txt") }`, ""},
		{`mkdir sub/x`, ""},
		{`ls sub/`, ""},
		{`ls ./sub`, ""},
		{`ls *.txt`, "mine.txt"},
		{`glob("sub/*").expand()`, ""},
		{`glob("**/*.txt").expand()`, "in-sub.txt"},
		{`stat ./mine.txt`, ""},
		{`with cwd: "sub/" { "y".save("./x//y.txt") }`, ""},
		{`cat sub/x/y.txt`, "y"},
		{`ls`, "mine.txt"},
		{`rm --permanent link`, ""}, // removes the link itself, which is inside
		{`rm -r --permanent d2`, ""},
	}
	for _, s := range steps {
		v, err := in.Eval(ctx, s.src)
		if err != nil {
			t.Fatalf("%s: %v", s.src, err)
		}
		if s.want != "" && (v == nil || !strings.Contains(value.Display(v), s.want)) {
			t.Errorf("%s = %v, want %q", s.src, v, s.want)
		}
	}
	for _, p := range []string{"d/moved.txt", "d/e", "sub/in-sub.txt"} {
		if _, err := os.Stat(filepath.Join(w.grant, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, p := range []string{"link", "d2"} {
		if _, err := os.Lstat(filepath.Join(w.grant, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there: %v", p, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(w.outside, "victim")); err != nil || string(b) != "victim" {
		t.Errorf("victim after removing the link to it: %q %v", b, err)
	}
}

// TestSpawnByName: a bare-name proc_spawn grant ("wc") runs the system
// program of that name, but not another program (sh) copied under that
// name where the principal may write, whether run by path, through a
// symlink or found through a PATH the program set itself.
func TestSpawnByName(t *testing.T) {
	w := newEscapeWorld(t)
	if _, err := os.Stat("/usr/bin/wc"); err != nil {
		t.Skip("no /usr/bin/wc:", err)
	}
	doc := fmt.Sprintf(`[principal."agent"]
fs.read = [%[1]q]
fs.write = [%[1]q]
proc_spawn = ["wc"]
env_read = ["PATH"]
env_write = ["PATH"]
`, w.grant+"/**")
	p, err := policy.Parse([]byte(doc), w.root)
	if err != nil {
		t.Fatal(err)
	}
	in := w.session(t, p.For("agent", false))
	ctx := context.Background()
	v, err := in.Eval(ctx, `(wc -c mine.txt).out`)
	if err != nil || !strings.Contains(value.Display(v), "4 mine.txt") {
		t.Fatalf("wc inside the grant: %v %v", v, err)
	}
	bin := filepath.Join(w.grant, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// Any program would do; sh stands for one the grant does not name.
	sh, _ := filepath.EvalSymlinks("/bin/sh")
	data, err := os.ReadFile(sh)
	if err != nil {
		t.Skip(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "wc"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w.grant, "bin2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(sh, filepath.Join(w.grant, "bin2", "wc")); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		`./bin/wc -c "echo escaped"`,
		`sh -c "echo escaped"`,
		`./bin2/wc -c "echo escaped"`,
		`env.PATH = "` + bin + `"` + "\n" + `wc -c "echo escaped"`,
	} {
		_, err := in.Eval(ctx, src)
		if code := errCode(err); code != "denied" {
			t.Errorf("%q: want denied, got %q (%v)", src, code, err)
		}
	}
}
