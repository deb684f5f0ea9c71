package fs_test

import (
	"context"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/lib/fs"
	"github.com/shoalgo/shoal/internal/libtest"
	"github.com/shoalgo/shoal/internal/value"
)

// gateCases has deny-all cases for every entry the file system library
// registers, by name (libtest.GateCase says what each must show; moved
// from eval's TestGateDenyAll).
var gateCases = libtest.GateCases{
	Builtins: map[string][]libtest.GateCase{
		"ls":    {{Src: "ls", Denied: true}, {Src: "ls sub", Denied: true}, {Src: "ls -a a.txt", Denied: true}, {Src: "ls *.txt", Denied: true}},
		"stat":  {{Src: "stat a.txt", Denied: true}},
		"cat":   {{Src: "cat a.txt", Denied: true}},
		"head":  {{Src: "head a.txt 1", Denied: true}},
		"mkdir": {{Src: "mkdir d", Denied: true}, {Src: "mkdir -p d/e", Denied: true}},
		"touch": {{Src: "touch a.txt", Denied: true}, {Src: "touch new.txt", Denied: true}},
		"cp":    {{Src: "cp a.txt c.txt", Denied: true}, {Src: "cp -r sub sub2", Denied: true}},
		"mv":    {{Src: "mv a.txt c.txt", Denied: true}},
		"rm": {
			{Src: "rm a.txt", Denied: true},
			{Src: "rm --permanent a.txt", Denied: true},
			{Src: "rm --permanent -r sub", Denied: true},
		},
		"ln":   {{Src: "ln -s a.txt l.txt", Denied: true}, {Src: "ln a.txt h.txt", Denied: true}},
		"save": {{Src: `save a.txt "overwritten"`, Denied: true}, {Src: `save new.txt "x"`, Denied: true}},
		"open": {{Src: "open a.txt", Denied: true}},
	},
	Methods: map[string][]libtest.GateCase{
		"exists":     {{Src: `path("a.txt").exists`, Denied: true}, {Src: `path("nope").exists`, Denied: true}},
		"is_file":    {{Src: `path("a.txt").is_file`, Denied: true}},
		"is_dir":     {{Src: `path("sub").is_dir`, Denied: true}},
		"size":       {{Src: `path("a.txt").size`, Denied: true}},
		"read":       {{Src: `path("a.txt").read`, Denied: true}},
		"read_bytes": {{Src: `path("a.txt").read_bytes`, Denied: true}},
		"lines":      {{Src: `path("a.txt").lines`, Denied: true}},
		"modified":   {{Src: `path("a.txt").modified`, Denied: true}},
		"abs":        {{Src: `path("a.txt").abs`}},
		"name":       {{Src: `path("a/b.txt").name`}},
		"stem":       {{Src: `path("a/b.txt").stem`}},
		"ext":        {{Src: `path("a/b.txt").ext`}},
		"parent":     {{Src: `path("a/b.txt").parent`}},
		"join":       {{Src: `path("a").join("b")`}},
		"save":       {{Src: `"overwritten".save("a.txt")`, Denied: true}, {Src: `[1].save("new.json")`, Denied: true}},
		"append":     {{Src: `"more".append("a.txt")`, Denied: true}},
	},
	Funcs: map[string][]libtest.GateCase{
		"watch": {{Src: `watch(path("sub"))`, Denied: true}, {Src: `watch(glob("sub/*.txt"), recursive: true)`, Denied: true}},
		"tail":  {{Src: `tail(path("a.txt"))`, Denied: true}},
		"save":  {{Src: `save("a.txt", "overwritten")`, Denied: true}, {Src: `save("new.json", [1])`, Denied: true}},
	},
}

func TestGateDenyAll(t *testing.T) {
	libtest.RunGate(t, fs.Part(), gateCases, map[string]string{"a.txt": "hello", "sub/x.txt": "x"})
}

// TestPathAccessorsNeedNoHost shows the pure path accessors ask the host
// for nothing, even under deny-all.
func TestPathAccessorsNeedNoHost(t *testing.T) {
	rec := host.NewRecording(host.NewOS(host.DenyAll))
	in, _ := libtest.Session(t, rec, nil)
	src := `let p = path("a/b.tar.gz")` + "\n" + `[p.name, p.stem, p.ext, p.parent, p.join("c").display()]`
	v, err := in.Eval(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := value.Inline(v), `["b.tar.gz", "b.tar", "gz", a, "a/b.tar.gz/c"]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if ops := rec.Ops(); len(ops) != 0 {
		t.Errorf("asked the host for %v", ops)
	}
}
