package leash_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

// askLog is an allow-all Authorizer that keeps every op it is asked.
type askLog struct {
	mu  sync.Mutex
	ops []host.Op
}

func (a *askLog) Authorize(_ context.Context, op host.Op) error {
	a.mu.Lock()
	a.ops = append(a.ops, op)
	a.mu.Unlock()
	return nil
}

// asked is a copy of the ops asked so far: a tail's follower goroutine
// may still be asking while the test reads.
func (a *askLog) asked() []host.Op {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]host.Op(nil), a.ops...)
}

// covered reports whether plan has an effect that answers op: the same
// kind, and the same path or a directory above it (recursive work), the
// same program, the same variable or "*", or a dynamic effect of that
// kind; an opaque plan covers everything.
func covered(plan *leash.Plan, op host.Op) bool {
	if plan.Opaque {
		return true
	}
	for _, e := range plan.Effects {
		if e.Kind != op.Effect {
			continue
		}
		if e.Dynamic {
			return true
		}
		switch op.Effect {
		case host.ProcSpawn:
			// A bare program name is resolved through PATH at run time.
			if e.Program == op.Target || !strings.Contains(e.Program, "/") && filepath.Base(op.Target) == e.Program {
				return true
			}
		case host.SysRead:
			if e.Name == op.Target {
				return true
			}
		case host.Clock:
			return true
		case host.EnvRead, host.EnvWrite:
			if e.Name == "*" || e.Name == op.Target {
				return true
			}
		default:
			if e.Path == op.Target || strings.HasPrefix(op.Target, strings.TrimSuffix(e.Path, "/")+"/") {
				return true
			}
			// A glob pattern covers the directory it lists and what it matches.
			if base, ok := globBase(e.Path); ok && (op.Target == base || strings.HasPrefix(op.Target, base+"/")) {
				return true
			}
			if e.Path == "" && e.Name != "" {
				return true
			}
		}
	}
	return false
}

// globBase returns the directory part of a glob pattern before its first
// wildcard, or false when p has none.
func globBase(p string) (string, bool) {
	i := strings.IndexAny(p, "*?[{")
	if i < 0 {
		return "", false
	}
	return filepath.Dir(p[:i]), true
}

// TestPlansCoverWhatTheGateAsks runs each source once for real, under an
// authorizer that allows and records every op, and checks that the plan
// explain derives for the same source lists every op the gate asked: a
// plan that under-asks would let a policy approve a program that then does
// more than it was shown to do.
func TestPlansCoverWhatTheGateAsks(t *testing.T) {
	sources := []string{
		"ls", "ls sub", "cat a.txt", "stat a.txt", "head a.txt 1",
		"mkdir newdir", "mkdir -p deep/er", "touch t.txt", "touch a.txt", "save a.txt \"x\"",
		"rm a.txt", "rm -r sub", "rm --permanent a.txt", "rm --permanent -r sub",
		"cp a.txt b.txt", "cp -r sub sub2", "mv a.txt c.txt", "mv a.txt sub", "ln a.txt l.txt", "ln -s a.txt s.txt",
		"cd sub", "pushd sub", "which sh", "env", "env HOME",
		"source lib.shl", "use lib", "echo hi > out.txt", "echo hi >> out.txt", "cat < a.txt",
		"sh { true }", "(sh { true }).ok", "^sh -c true", "sh -c true > out.txt", "run sh -c true",
		"\"true\".feed(sh)", "\"x\".feed(sh { cat })",
		"path(\"a.txt\").read", "path(\"a.txt\").exists", "path(\"sub\").is_dir", "path(\"a.txt\").size",
		"path(\"a.txt\").lines", "path(\"a.txt\").modified", "path(\"a.txt\").read_bytes",
		"\"z\".save(\"z.txt\")", "\"more\".append(\"a.txt\")", "[\"x\"].stream().save(\"s.txt\")",
		"let p = path(\"a.txt\")\np.read",
		"glob(\"*.txt\").expand()", "with cwd: \"sub\" { ls }",
		"os.pid()", "os.hostname()", "os.uptime()",
		"watch(path(\"sub\"))", "watch(glob(\"sub/*.txt\"))", "tail(path(\"a.txt\"))", "tail(\"a.txt\")",
		"(ls).where(.modified > now)", "every(5ms).take(2).collect()", "now - 1h",
	}
	sources = append(sources, clockAndFactSources...)
	for _, src := range sources {
		t.Run(src, func(t *testing.T) {
			log, plan := runAndDerive(t, src)
			for _, op := range log.asked() {
				if !covered(plan, op) {
					t.Errorf("the gate asked %s %s, which the plan does not list; plan: %+v", op.Effect, op.Target, plan.Effects)
				}
			}
		})
	}
}

// clockAndFactSources read the clock or a system fact and nothing else;
// for them the plan must be exact: TestPlansAskNoMoreThanTheGate checks
// the reverse of TestPlansCoverWhatTheGateAsks.
var clockAndFactSources = []string{
	"now", "now()", "today", "today()", "every(1s)", "1s.ago()", "1h.from_now()",
	"let d = 90s\nd.ago()", "[1s, 2s].map(d => d.ago())",
	"os.cpus()", "os.platform()", "os.name()", "os.arch()",
	"os.pid()", "os.hostname()", "os.uptime()", "os.username()",
}

// TestPlansAskNoMoreThanTheGate: for sources that only read the clock or
// system facts, every effect the plan lists is one the gate was asked
// when the source ran, so explain shows exactly what the gate asks.
func TestPlansAskNoMoreThanTheGate(t *testing.T) {
	for _, src := range clockAndFactSources {
		t.Run(src, func(t *testing.T) {
			log, plan := runAndDerive(t, src)
			if plan.Opaque {
				t.Fatalf("plan is opaque")
			}
			for _, e := range plan.Effects {
				found := false
				for _, op := range log.asked() {
					if op.Effect == e.Kind && (e.Kind != host.SysRead || op.Target == e.Name) {
						found = true
					}
				}
				if !found {
					t.Errorf("the plan lists %s %s, which the gate was never asked; asked: %+v", e.Kind, e.Name, log.asked())
				}
			}
			if len(log.asked()) == 0 {
				t.Errorf("the gate was asked nothing")
			}
		})
	}
}

// runAndDerive runs src once for real in a fixture tree, under an
// authorizer that allows and records every op, and derives its plan.
func runAndDerive(t *testing.T, src string) (*askLog, *leash.Plan) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "work")
	tmp := filepath.Join(root, "tmp")
	home := filepath.Join(root, "home")
	for _, d := range []string{dir, tmp, home, filepath.Join(dir, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"a.txt": "a", "sub/x.txt": "x", "lib.shl": "let v = 1"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home, "TMPDIR=" + tmp, "PATH=/usr/bin:/bin"}
	log := &askLog{}
	in, err := eval.New(eval.Options{Registry: testRegistry, Host: host.NewOS(log), Dir: dir, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	log.mu.Lock()
	log.ops = nil // what New itself read is not the program's
	log.mu.Unlock()
	if _, err := in.Eval(context.Background(), src); err != nil {
		t.Fatalf("run: %v", err)
	}
	prog, err := syntax.Parse(src, syntax.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return log, leash.Derive(prog, leash.Env{Dir: dir, Home: home, Trash: eval.TrashRoot(env), Registry: testRegistry})
}
