package eval

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// bfsSnapshot records every entry under root: kind, size, mode, mtime and
// content, so any change made by a command shows up as a difference.
func bfsSnapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		desc := fi.Mode().String() + " " + fi.ModTime().Format(time.RFC3339Nano)
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += " " + string(b)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			desc += " -> " + target
		}
		out[p] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFSBuiltinsDenied runs every registered filesystem builtin under a
// deny-all host: each one that needs the host is refused with `denied`
// and the tree is left exactly as it was; the few that need nothing from
// the host (pwd, dirs, popd on an empty stack) ask for nothing.
func TestFSBuiltinsDenied(t *testing.T) {
	type denyCase struct {
		src    string
		denied bool   // refused by the host
		code   string // otherwise: expected error code, "" for success
	}
	cases := map[string][]denyCase{
		"ls":    {{src: "ls", denied: true}, {src: "ls sub", denied: true}, {src: "ls -a a.txt", denied: true}},
		"stat":  {{src: "stat a.txt", denied: true}},
		"cat":   {{src: "cat a.txt", denied: true}},
		"head":  {{src: "head a.txt 1", denied: true}},
		"mkdir": {{src: "mkdir d", denied: true}, {src: "mkdir -p d/e", denied: true}},
		"touch": {{src: "touch a.txt", denied: true}, {src: "touch new.txt", denied: true}},
		"cp":    {{src: "cp a.txt c.txt", denied: true}, {src: "cp -r sub sub2", denied: true}},
		"mv":    {{src: "mv a.txt c.txt", denied: true}},
		"rm": {
			{src: "rm a.txt", denied: true},
			{src: "rm --permanent a.txt", denied: true},
			{src: "rm --permanent -r sub", denied: true},
		},
		"ln":    {{src: "ln -s a.txt l.txt", denied: true}, {src: "ln a.txt h.txt", denied: true}},
		"save":  {{src: `save a.txt "overwritten"`, denied: true}, {src: `save new.txt "x"`, denied: true}},
		"open":  {{src: "open a.txt", denied: true}},
		"cd":    {{src: "cd sub", denied: true}},
		"pushd": {{src: "pushd sub", denied: true}},
		"popd":  {{src: "popd", code: "custom"}},
		"dirs":  {{src: "dirs"}},
		"pwd":   {{src: "pwd"}},
	}
	var registered []string
	for _, b := range bfsBuiltins {
		registered = append(registered, b.Name)
	}
	var covered []string
	for name := range cases {
		covered = append(covered, name)
	}
	sort.Strings(registered)
	sort.Strings(covered)
	if !reflect.DeepEqual(registered, covered) {
		t.Fatalf("deny cases cover %v, registered builtins are %v", covered, registered)
	}

	files := map[string]string{"a.txt": "hello", "sub/x.txt": "x"}
	for _, name := range registered {
		for _, tc := range cases[name] {
			t.Run(tc.src, func(t *testing.T) {
				rec := host.NewRecording(host.NewOS(host.DenyAll))
				in, dir := bfsSession(t, bfsExtHost{Host: rec, auth: host.DenyAll}, files)
				root := filepath.Dir(dir)
				before := bfsSnapshot(t, root)
				_, err := in.Eval(context.Background(), tc.src)
				after := bfsSnapshot(t, root)
				if !reflect.DeepEqual(before, after) {
					t.Errorf("tree changed:\nbefore %v\nafter  %v", before, after)
				}
				switch {
				case tc.denied:
					if bfsCode(err) != "denied" {
						t.Fatalf("got %v, want a denial", err)
					}
				case tc.code != "":
					if bfsCode(err) != tc.code {
						t.Fatalf("got %v, want %s", err, tc.code)
					}
				case err != nil:
					t.Fatalf("error: %v", err)
				}
				if !tc.denied {
					if ops := rec.Ops(); len(ops) != 0 {
						t.Errorf("asked the host for %v", ops)
					}
				}
			})
		}
	}
}

// TestFSPathAccessorsNeedNoHost shows the pure path accessors ask the host
// for nothing, even under deny-all.
func TestFSPathAccessorsNeedNoHost(t *testing.T) {
	rec := host.NewRecording(host.NewOS(host.DenyAll))
	in, _ := bfsSession(t, rec, nil)
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
