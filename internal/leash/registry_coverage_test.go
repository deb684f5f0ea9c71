package leash_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

// regCase is one representative use of a registered name. opaque: the
// plan is expected to be opaque (which covers everything), so the case
// proves only that the run stays inside what the plan admits.
type regCase struct {
	src    string
	opaque bool
}

// registryCases has representative uses of every registered builtin
// command and value function, by name. TestPlansCoverTheRegistry fails
// when a registered name has none.
var registryCases = map[string][]regCase{
	// commands
	"apply":    {{src: "let p = (plan { cat a.txt })\napply p", opaque: true}},
	"bg":       {{src: "bg (spawn { cat a.txt })"}},
	"cat":      {{src: "cat a.txt sub/x.txt"}, {src: "cat < a.txt"}, {src: "cat *.txt"}, {src: "cat sub/*.txt"}},
	"cd":       {{src: "cd sub; cat x.txt"}, {src: "cd sub; cd -; cat a.txt"}, {src: "cd; ls"}, {src: "cd"}, {src: "cd -"}, {src: "cd ~; ls"}, {src: "cd (\"sub\")"}},
	"cp":       {{src: "cp a.txt lib.shl sub"}, {src: "cp *.txt sub"}, {src: "cp a.txt b.txt"}, {src: "cp -r sub sub2"}, {src: "cp a.txt sub"}},
	"dirs":     {{src: "dirs"}},
	"help":     {{src: "help"}, {src: "help ls"}, {src: "cat --help"}},
	"echo":     {{src: "echo hi > out.txt"}, {src: "echo -n --x=1 hi >> out.txt"}},
	"env":      {{src: "env"}, {src: "env HOME"}},
	"exit":     {{src: "exit 0"}},
	"explain":  {{src: "explain 'rm --permanent a.txt'"}},
	"fg":       {{src: "fg (spawn { stat a.txt })"}},
	"head":     {{src: "head a.txt"}, {src: "head sub/*.txt 1"}, {src: "head a.txt 1"}},
	"interact": {{src: "interact sh -c true"}},
	"jobs":     {{src: "jobs"}},
	"journal":  {{src: "try { journal --limit=5 } catch e { e.code }"}},
	"history":  {{src: "try { history --head=rm } catch e { e.code }"}},
	"undo":     {{src: "try { undo } catch e { e.code }", opaque: true}},
	"kill":     {{src: "kill (spawn { sleep 1s })"}, {src: "kill -0 1"}},
	"ln":       {{src: "ln -s a.txt sub"}, {src: "ln a.txt h.txt"}, {src: "ln -s a.txt s.txt"}},
	"ls":       {{src: "ls a.txt"}, {src: "ls sub/*.txt"}, {src: `ls("sub")`}, {src: "ls"}, {src: "ls -a sub"}, {src: "ls *.txt"}},
	"mkdir":    {{src: "mkdir -p sub"}, {src: "mkdir sub/a sub/b"}, {src: "mkdir newdir"}, {src: "mkdir -p deep/er"}, {src: `mkdir("m", parents: true)`}},
	"mv":       {{src: "mv *.txt sub"}, {src: "mv a.txt lib.shl sub"}, {src: "mv a.txt c.txt"}, {src: "mv a.txt sub"}},
	"now":      {{src: "now"}},
	"open":     {{src: "open a.txt"}},
	"plan":     {{src: "plan { rm a.txt; sh { true } }"}, {src: "plan rm a.txt"}},
	"popd":     {{src: "pushd sub; popd; cat a.txt"}, {src: "popd", opaque: true}},
	"pushd":    {{src: "pushd sub; cat x.txt"}, {src: "pushd sub; pushd; ls"}, {src: "pushd", opaque: true}},
	"pwd":      {{src: "pwd"}},
	"reef":     {{src: "reef", opaque: true}, {src: "reef doctor", opaque: true}, {src: "try { reef lock } catch e { e.code }", opaque: true}, {src: "reef add sh@*", opaque: true}},
	"jump":     {{src: "jump sub; cat x.txt", opaque: true}},
	"j":        {{src: "cd sub; cd ..; j sub", opaque: true}},
	"quit":     {{src: "quit"}},
	"rm":       {{src: "rm *.txt"}, {src: "rm a.txt"}, {src: "rm -r sub"}, {src: "rm --permanent a.txt"}, {src: "rm --permanent -r sub"}},
	"run": {
		{src: "run sh -c true"}, {src: `run("sh", "-c", "true")`}, {src: "run ls sub"}, {src: `run("ls")`},
		{src: "run s.sh x"}, {src: `run("s.sh")`}, {src: "run ./tool"},
		{src: "run ./lib.shl", opaque: true}, {src: "run evil.shl", opaque: true},
	},
	"save":   {{src: `let p = path("o.txt"); save(p, 1)`}, {src: `save sub/o.txt "x"`}, {src: `save out.txt "x"`}, {src: `save("out.txt", {a: 1})`}},
	"sleep":  {{src: "sleep 1ms"}},
	"source": {{src: "source lib.shl", opaque: true}},
	"stat":   {{src: "stat *.txt"}, {src: "stat a.txt sub"}},
	"today":  {{src: "today"}},
	"touch":  {{src: "touch a.txt t.txt"}},
	"wait":   {{src: "wait (spawn { cat a.txt })"}},
	"which":  {{src: "which nosuchprog"}, {src: "which sh"}, {src: "which -a sh", opaque: true}},
	// value functions
	"assert":   {{src: "assert(path(\"a.txt\").exists)"}},
	"channel":  {{src: `channel("user.x")`}},
	"every":    {{src: "every(5ms).take(2).collect()"}},
	"glob":     {{src: `glob("*.txt", hidden: true).expand()`}, {src: `glob("sub/*.txt").len()`}, {src: `glob("*.txt").expand()`}},
	"on":       {{src: `on(channel("user.x"), e => { cat a.txt })`}},
	"parallel": {{src: "parallel(() => { cat a.txt }, () => { ls sub })"}},
	"path":     {{src: `path("a.txt").read`}},
	"regex":    {{src: `regex("a+")`}},
	"retry":    {{src: "retry(2) { cat a.txt }"}},
	"tail":     {{src: `tail("a.txt")`}, {src: `tail(path("a.txt"))`}},
	"watch":    {{src: `watch(path("sub"), recursive: true)`}, {src: `watch(glob("sub/*.txt"))`}},
}

// interpreterBodies are inline programs each interpreter runs harmlessly.
var interpreterBodies = map[string]string{
	"sh": "true", "bash": "true", "zsh": "true", "fish": "true", "python": "1", "python3": "1",
	"node": "1", "ruby": "1", "perl": "1", "lua": "x=1", "Rscript": "1", "osascript": "1",
	"php": "1;", "deno": "1", "jq": ".",
}

// TestPlansCoverTheRegistry is acceptance point 4 of issue 10: for every
// registered builtin command and value function (with representative
// arguments) and every interpreter block, the program runs once for real
// under an authoriser that allows and records each op, and the plan
// derived for the same source lists every op the gate asked.
func TestPlansCoverTheRegistry(t *testing.T) {
	registered := map[string]bool{}
	for _, n := range testRegistry.BuiltinNames() {
		registered[n] = true
	}
	for _, n := range testRegistry.FuncNames() {
		registered[n] = true
	}
	if len(registered) < 40 {
		t.Fatalf("only %d registered names", len(registered))
	}
	for n := range registered {
		if len(registryCases[n]) == 0 {
			t.Errorf("registered %s has no coverage case: add one to registryCases", n)
		}
	}
	for n := range registryCases {
		if !registered[n] {
			t.Errorf("registryCases has %s, which is not registered", n)
		}
	}
	for name, cases := range registryCases {
		for _, c := range cases {
			t.Run(name+"/"+c.src, func(t *testing.T) {
				checkCovered(t, c.src, c.opaque)
			})
		}
	}
}

// TestRunningAShoalFileIsOpaque: `./x.shl` and `run x.shl` evaluate
// another file in-process; before the registry entry said so, their plans
// showed a spawn and missed what the file does.
func TestRunningAShoalFileIsOpaque(t *testing.T) {
	for _, src := range []string{"./evil.shl", "run ./evil.shl", `run("evil.shl")`} {
		log, plan, err := runAndDeriveAllowingErrors(t, src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if !plan.Opaque {
			t.Errorf("%s: plan %+v is not opaque", src, plan.Effects)
		}
		read := false
		for _, op := range log.ops {
			read = read || op.Effect == host.FSRead && strings.HasSuffix(op.Target, "/a.txt")
		}
		if !read {
			t.Errorf("%s: the file's cat a.txt did not run (ops %+v)", src, log.ops)
		}
	}
}

// TestPlansCoverInterpreterBlocks: every interpreter an interpreter block
// knows, run as a block.
func TestPlansCoverInterpreterBlocks(t *testing.T) {
	tools := eval.InterpreterTools()
	if len(tools) < 10 {
		t.Fatalf("only %d interpreters", len(tools))
	}
	for _, tool := range tools {
		body, ok := interpreterBodies[tool]
		if !ok {
			t.Errorf("interpreter %s has no coverage case: add it to interpreterBodies", tool)
			continue
		}
		for _, src := range []string{tool + " { " + body + " }", "(" + tool + " { " + body + " }).ok"} {
			t.Run(src, func(t *testing.T) {
				prog, err := syntax.Parse(src, syntax.ParseOptions{})
				if err != nil {
					t.Fatal(err)
				}
				found := false
				syntax.Walk(prog, func(n syntax.Node) bool {
					_, isBlock := n.(*syntax.LangBlock)
					found = found || isBlock
					return true
				})
				if !found {
					t.Fatalf("%s does not parse as an interpreter block", src)
				}
				checkCovered(t, src, false)
			})
		}
	}
}

// checkCovered runs src (errors allowed: an interpreter or opener may be
// missing; the ops asked before the failure still count) and checks that
// its plan covers every op, that the plan is opaque exactly when expected,
// and, for a plan that is not opaque, that the gate was asked something
// whenever the plan lists effects it could not have skipped.
func checkCovered(t *testing.T, src string, opaque bool) {
	t.Helper()
	log, plan, runErr := runAndDeriveAllowingErrors(t, src)
	if plan.Opaque != opaque {
		t.Errorf("plan opaque = %v, want %v: %+v (notes %q)", plan.Opaque, opaque, plan.Effects, plan.Notes)
	}
	for _, op := range log.ops {
		if !covered(plan, op) {
			t.Errorf("the gate asked %s %s, which the plan does not list; plan: %+v (run error: %v)", op.Effect, op.Target, plan.Effects, runErr)
		}
	}
}

// runAndDeriveAllowingErrors is runAndDerive for sources whose run may
// fail (a missing interpreter); it closes the session afterwards, ending
// any task the source started.
func runAndDeriveAllowingErrors(t *testing.T, src string) (*askLog, *leash.Plan, error) {
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
	for name, body := range map[string]string{
		"a.txt": "a", "sub/x.txt": "x", "lib.shl": "let v = 1", "evil.shl": "cat a.txt",
		"s.sh": "true\n", "tool": "#!/bin/sh\ntrue\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home, "TMPDIR=" + tmp, "PATH=" + os.Getenv("PATH")}
	log := &askLog{}
	in, err := eval.New(eval.Options{Registry: testRegistry, Host: host.NewOS(log), Dir: dir, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	log.mu.Lock()
	log.ops = nil // what New itself read is not the program's
	log.mu.Unlock()
	_, runErr := in.Eval(context.Background(), src)
	if runErr != nil && strings.Contains(runErr.Error(), "denied") {
		t.Fatalf("run was refused under an allow-all gate: %v", runErr)
	}
	prog, err := syntax.Parse(src, syntax.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan := leash.Derive(prog, leash.Env{Dir: dir, Home: home, Trash: eval.TrashRoot(env), Registry: testRegistry})
	log.mu.Lock()
	ops := append([]host.Op(nil), log.ops...)
	log.mu.Unlock()
	return &askLog{ops: ops}, plan, runErr
}
