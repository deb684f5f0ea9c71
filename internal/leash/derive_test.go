package leash_test

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

var testEnv = Env{
	Registry: testRegistry,
	Dir:      "/work/proj",
	Home:     "/home/u",
	Trash:    "/tmp/shoal-trash",
	IsBound: func(name string) bool {
		return name == "p" || name == "f" || name == "s" || name == "cmdv"
	},
	TypeOf: func(name string) string {
		return map[string]string{"p": "path", "f": "closure", "s": "str", "cmdv": "command"}[name]
	},
	Function: func(name string) (*syntax.FnDecl, bool) {
		switch name {
		case "cleanup":
			prog, err := syntax.Parse("fn cleanup() { rm ./tmp }", syntax.ParseOptions{})
			if err != nil {
				panic(err)
			}
			return prog.Stmts[0].(*syntax.FnStmt).Decl, true
		case "secretfn":
			return nil, true
		}
		return nil, false
	},
	Alias: func(name string) (*syntax.CmdCall, bool) {
		if name == "ll" {
			prog, err := syntax.Parse("ls -la", syntax.ParseOptions{})
			if err != nil {
				panic(err)
			}
			return prog.Stmts[0].(*syntax.ExprStmt).X.(*syntax.Cmd).Call, true
		}
		return nil, false
	},
}

func derive(t *testing.T, src string) *Plan {
	t.Helper()
	prog, err := syntax.Parse(src, syntax.ParseOptions{IsBound: testEnv.IsBound})
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return Derive(prog, testEnv)
}

// show renders effects compactly: kind:path, kind:program[argv], kind:name,
// with a trailing ? for dynamic effects.
func show(p *Plan) string {
	parts := make([]string, 0, len(p.Effects))
	for _, e := range p.Effects {
		s := string(e.Kind)
		switch {
		case e.Program != "":
			s += ":" + e.Program + fmt.Sprint(e.Argv)
		case e.Path != "":
			s += ":" + e.Path
		case e.Name != "":
			s += ":" + e.Name
		}
		if e.Dynamic {
			s += "?"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestDerive(t *testing.T) {
	tests := []struct {
		src     string
		effects string
		rev     string
		opaque  bool
	}{
		// pure evaluation
		{`1 + 2`, ``, Reversible, false},
		{`let x = [1, 2].map(n => n * 2); x.len()`, ``, Reversible, false},
		{`"a,b".split(",")`, ``, Reversible, false},
		{`json.parse("[1]")`, ``, Reversible, false},
		{`math.max(1, 2)`, ``, Reversible, false},
		{`s.lines()`, ``, Reversible, false},
		{`path("a/b").name`, ``, Reversible, false},
		// the network and secrets (http, secret)
		{`http.get("https://api.example.test/v1/items")`, `net_connect:api.example.test:443`, Reversible, false},
		{`http.get("http://127.0.0.1:8080/x", headers: {Accept: "text/plain"})`, `net_connect:127.0.0.1:8080`, Reversible, false},
		{`http.post("http://[::1]:9/x", "b")`, `net_connect:[::1]:9`, Irreversible, false},
		{`http.put("http://Example.TEST/", "b")`, `net_connect:example.test:80`, Irreversible, false},
		{`http.delete(s)`, `net_connect:http.delete?`, Irreversible, true},
		{`http.get("ftp://x")`, `net_connect:http.get?`, Reversible, true},
		{`http.get`, ``, Reversible, false},
		{`let http = {get: 1}; http.get`, ``, Reversible, false},
		{`secret.get("api-token")`, `secret_use:api-token`, Reversible, false},
		{`let t = secret.get("tok"); http.get("https://h.test/me", headers: {Authorization: t})`, `secret_use:tok net_connect:h.test:443`, Reversible, false},
		{`secret.get(s)`, `secret_use:secret.get?`, Reversible, true},
		// reads
		{`ls`, `fs_read:/work/proj`, Reversible, false},
		{`ls src ../other`, `fs_read:/work/proj/src fs_read:/work/other`, Reversible, false},
		{`cat ~/notes.txt`, `fs_read:/home/u/notes.txt`, Reversible, false},
		{`head a.txt 3`, `fs_read:/work/proj/a.txt`, Reversible, false},
		{`stat a.txt b.txt`, `fs_read:/work/proj/a.txt fs_read:/work/proj/b.txt`, Reversible, false},
		{`open "data.json"`, `fs_read:/work/proj/data.json env_read:PATH proc_spawn:xdg-open[xdg-open (…)]`, Irreversible, false},
		{`path("x.txt").read`, `fs_read:/work/proj/x.txt`, Reversible, false},
		{`path("/etc/hosts").lines()`, `fs_read:/etc/hosts`, Reversible, false},
		{`path("d").join("f.txt").exists()`, `fs_read:/work/proj/d/f.txt`, Reversible, false},
		{`let q = path("~/a"); q.size`, `fs_read:/home/u/a`, Reversible, false},
		{`p.read`, `fs_read:.read?`, Reversible, true},
		{`(ls).where(.modified > now)`, `fs_read:/work/proj time`, Reversible, false},
		{`cat < in.txt`, `fs_read:/work/proj/in.txt`, Reversible, false},
		// writes
		{`"x".save("a.txt")`, `fs_write:/work/proj/a.txt`, Conditional, false},
		{`[1].append("/tmp/log")`, `fs_write:/tmp/log`, Conditional, false},
		{`save("out.json", {a: 1})`, `fs_write:/work/proj/out.json`, Conditional, false},
		{`echo hi > out.txt`, `fs_write:/work/proj/out.txt`, Conditional, false},
		{`echo hi >> ./log/../out.txt`, `fs_write:/work/proj/out.txt`, Conditional, false},
		{`mkdir --parents a/b/c`, `fs_write:/work/proj/a/b/c`, Irreversible, false},
		{`touch a.txt b.txt`, `fs_read:/work/proj/a.txt fs_read:/work/proj/b.txt fs_write:/work/proj/a.txt fs_write:/work/proj/b.txt`, Irreversible, false},
		{`cp a.txt b.txt`, `fs_read:/work/proj/a.txt fs_read:/work/proj/b.txt fs_write:/work/proj/b.txt`, Conditional, false},
		{`cp --recursive srcdir /backup`, `fs_read:/work/proj/srcdir fs_read:/backup fs_write:/backup`, Conditional, false},
		{`ln --symbolic t.txt link`, `fs_read:/work/proj/t.txt fs_write:/work/proj/link`, Irreversible, false},
		// deletes
		{`rm x.txt`, `fs_read:/work/proj/x.txt fs_delete:/work/proj/x.txt fs_write:/tmp/shoal-trash`, Conditional, false},
		{`rm --permanent x.txt`, `fs_read:/work/proj/x.txt fs_delete:/work/proj/x.txt`, Irreversible, false},
		{`rm *.txt`, `fs_read:/work/proj/*.txt fs_delete:/work/proj/*.txt fs_write:/tmp/shoal-trash`, Conditional, false},
		{`rm ~/tmp/**/*.log`, `fs_read:/home/u/tmp/**/*.log fs_delete:/home/u/tmp/**/*.log fs_write:/tmp/shoal-trash`, Conditional, false},
		{`mv a.txt b.txt`, `fs_read:/work/proj/a.txt fs_delete:/work/proj/a.txt fs_read:/work/proj/b.txt fs_write:/work/proj/b.txt`, Conditional, false},
		// directory tracking
		{`cd sub; cat a.txt`, `fs_read:/work/proj/sub fs_read:/work/proj/sub/a.txt`, Reversible, false},
		{`cd /tmp; cd -; cat a.txt`, `fs_read:/tmp fs_read:/work/proj fs_read:/work/proj/a.txt`, Reversible, false},
		{`cd; cat a.txt`, `fs_read:/home/u fs_read:/home/u/a.txt`, Reversible, false},
		{`pushd a; pushd; cat x`, `fs_read:/work/proj/a fs_read:/work/proj fs_read:/work/proj/x`, Reversible, false},
		{`pushd a; popd; cat x`, `fs_read:/work/proj/a fs_read:/work/proj fs_read:/work/proj/x`, Reversible, false},
		{`with cwd: "/srv" { rm old }; rm new`, `fs_read:/srv/old fs_delete:/srv/old fs_write:/tmp/shoal-trash fs_read:/work/proj/new fs_delete:/work/proj/new`, Conditional, false},
		{`cd (s); cat a.txt`, `fs_read:argument? fs_read:a.txt?`, Reversible, true},
		// environment, clock, system
		{`env.HOME`, `env_read:HOME`, Reversible, false},
		{`env.X = "1"`, `env_write:X`, Reversible, false},
		{`env.N += 1`, `env_read:N env_write:N`, Reversible, false},
		{`now`, `time`, Reversible, false},
		{`today()`, `time`, Reversible, false},
		{`os.hostname`, `sys_read:hostname`, Reversible, false},
		{`os.arch`, `sys_read:arch`, Reversible, false},
		{`os.name()`, `sys_read:platform`, Reversible, false},
		{`os.cpus()`, `sys_read:cpus`, Reversible, false},
		{`every(1s)`, `time`, Reversible, false},
		{`1s.ago()`, `time`, Reversible, false},
		{`5m.from_now()`, `time`, Reversible, false},
		{`which git`, `env_read:PATH`, Reversible, false},
		// spawns
		{`git status --short`, `env_read:PATH proc_spawn:git[git status --short]`, Irreversible, false},
		{`^ls -l`, `env_read:PATH proc_spawn:ls[ls -l]`, Irreversible, false},
		{`./build.sh --fast`, `fs_read:/work/proj/build.sh proc_spawn:/work/proj/build.sh[./build.sh --fast]`, Irreversible, false},
		{`A=1 make (s)`, `env_read:PATH proc_spawn:make[make (…)]`, Irreversible, false},
		{`sh { echo a }`, `env_read:PATH proc_spawn:sh[sh]`, Irreversible, false},
		{`python3 { print(1) }.out`, `env_read:PATH proc_spawn:python3[python3]`, Irreversible, false},
		{`[1, 2].feed(sort -u)`, `env_read:PATH proc_spawn:sort[sort -u]`, Irreversible, false},
		{`sort.feed("b\na")`, `env_read:PATH proc_spawn:sort[sort]`, Irreversible, false},
		{`run("git", "log")`, `env_read:PATH proc_spawn:git[git log]`, Irreversible, false},
		{`run ls sub`, `env_read:PATH proc_spawn:ls[ls sub]`, Irreversible, false},
		{`run s.py -v`, `fs_read:/work/proj/s.py env_read:PATH proc_spawn:python3[python3 /work/proj/s.py -v]`, Irreversible, false},
		{`run ./tool x`, `fs_read:/work/proj/tool proc_spawn:/work/proj/tool[/work/proj/tool x]`, Irreversible, false},
		{`run ./lib.shl`, `fs_read:/work/proj/lib.shl opaque:run?`, Unknown, true},
		{`./lib.shl`, `fs_read:/work/proj/lib.shl opaque:./lib.shl?`, Unknown, true},
		{`echo (cat a.txt).out`, `fs_read:/work/proj/a.txt`, Reversible, false},
		{`echo hi && rm x`, `fs_read:/work/proj/x fs_delete:/work/proj/x fs_write:/tmp/shoal-trash`, Conditional, false},
		// functions, aliases, closures
		{`fn f() { rm a }; f()`, `fs_read:/work/proj/a fs_delete:/work/proj/a fs_write:/tmp/shoal-trash`, Conditional, false},
		{`fn g() { cat a }`, ``, Reversible, false},
		{`fn r(n) { if n > 0 { r(n - 1) } else { touch z } }; r(3)`, `fs_read:/work/proj/z fs_write:/work/proj/z`, Irreversible, false},
		{`alias la = ls -a; la src`, `fs_read:/work/proj/src`, Reversible, false},
		{`ll`, `fs_read:/work/proj`, Reversible, false},
		{`cleanup`, `fs_read:/work/proj/tmp fs_delete:/work/proj/tmp fs_write:/tmp/shoal-trash`, Conditional, false},
		{`let h = x => path(x).read; h("a")`, `fs_read:.read?`, Reversible, true},
		{`fn mk() { () => { rm x } }; let c = mk(); c()`, `fs_read:/work/proj/x fs_delete:/work/proj/x fs_write:/tmp/shoal-trash`, Conditional, false},
		{`let g = f; g()`, `opaque:f? opaque:g?`, Unknown, true},
		{`let w = save; w("x", 1)`, `opaque:w?`, Unknown, true},
		{`[1].map(f)`, `opaque:f?`, Unknown, true},
		{`on("user.x", f)`, `opaque:f?`, Unknown, true},
		{`parallel(f)`, `opaque:f?`, Unknown, true},
		{`retry(2, f)`, `opaque:f?`, Unknown, true},
		{`let h = f; [1].map(h)`, `opaque:f?`, Unknown, true},
		{`[1].map(s); s.len()`, ``, Reversible, false},
		{`[x => 1].map(h => h(2))`, `opaque:h?`, Unknown, true},
		{`ls.where(r => r.size > 1)`, `fs_read:/work/proj`, Reversible, false},
		{`let cat = 1; cat`, ``, Reversible, false},
		{`alias ls = ls -la; ls src`, `fs_read:/work/proj/src`, Reversible, false},
		{`fn rd(q: path) { q.read }; rd(path("x"))`, `fs_read:.read?`, Reversible, true},
		{`interact vim notes.md`, `env_read:PATH proc_spawn:vim[vim notes.md]`, Irreversible, false},
		{`spawn { rm a }`, `fs_read:/work/proj/a fs_delete:/work/proj/a fs_write:/tmp/shoal-trash`, Conditional, false},
		{`try { rm a } catch e { touch b }`, `fs_read:/work/proj/a fs_delete:/work/proj/a fs_write:/tmp/shoal-trash fs_read:/work/proj/b fs_write:/work/proj/b`, Irreversible, false},
		{`match 1 { 1 => { cat a }, _ => { cat b } }`, `fs_read:/work/proj/a fs_read:/work/proj/b`, Reversible, false},
		// opaque
		// history and journal read the journal; undo reverses an entry
		// chosen at run time, which no plan can bound.
		{`undo`, `journal_read opaque:undo?`, Unknown, true},
		{`history`, `journal_read`, Reversible, false},
		{`journal --limit=3`, `journal_read`, Reversible, false},
		{`jobs; wait; fg; bg`, ``, Reversible, false},
		{`kill %1`, ``, Reversible, false},
		{`kill -TERM 1234`, `env_read:PATH proc_spawn:kill[kill -TERM 1234]`, Irreversible, false},
		{`mkdir("a", parents: true)`, `fs_write:/work/proj/a`, Irreversible, false},
		{`cat("x.txt")`, `fs_read:/work/proj/x.txt`, Reversible, false},
		{`tail(path("log"))`, `fs_read:/work/proj/log`, Reversible, false},
		{`f(1)`, `opaque:f?`, Unknown, true},
		{`secretfn`, `opaque:secretfn?`, Unknown, true},
		{`run(s)`, `proc_spawn:run?`, Irreversible, true},
		{`[1].feed(cmdv)`, `proc_spawn:cmdv?`, Irreversible, true},
		{`source ./lib.shl`, `fs_read:/work/proj/lib.shl opaque:source?`, Unknown, true},
		{`use ./mod`, `fs_read:/work/proj/mod opaque:use ./mod?`, Unknown, true},
		{`"x".save(s)`, `fs_write:.save?`, Conditional, true},
		{`for x in [1, 2] { cd sub }; cat a`, `fs_read:/work/proj/sub fs_read:a?`, Reversible, true},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			p := derive(t, tt.src)
			if got := show(p); got != tt.effects {
				t.Errorf("effects\n got: %s\nwant: %s", got, tt.effects)
			}
			if p.Reversibility != tt.rev {
				t.Errorf("reversibility = %s, want %s", p.Reversibility, tt.rev)
			}
			if p.Opaque != tt.opaque {
				t.Errorf("opaque = %v, want %v (notes %q)", p.Opaque, tt.opaque, p.Notes)
			}
		})
	}
}
