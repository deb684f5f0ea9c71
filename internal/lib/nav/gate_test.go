package nav_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/lib/nav"
)

// gateCase is one program run under a deny-all host: a denied case fails
// with `denied` after the gate was asked exactly once; any other asks the
// host for nothing and fails with code ("" for success). Neither changes
// the tree. (eval's TestGateDenyAll is the model; these are nav's rows.)
type gateCase struct {
	src    string
	denied bool
	code   string
}

// gateCases has cases for every builtin nav registers, by name.
var gateCases = map[string][]gateCase{
	"dirs":  {{src: "dirs"}},
	"popd":  {{src: "popd", code: "custom"}},
	"cd":    {{src: "cd sub", denied: true}, {src: "cd", denied: true}},
	"pushd": {{src: "pushd sub", denied: true}, {src: "pushd", code: "custom"}},
	"jump":  {{src: "jump sub", denied: true}, {src: `jump "a" "b"`, code: "arg_error"}, {src: "jump", code: "not_found"}},
	"j":     {{src: "j sub", denied: true}},
}

func TestGateDenyAll(t *testing.T) {
	r, err := eval.NewRegistry(nav.Part())
	if err != nil {
		t.Fatal(err)
	}
	names := r.BuiltinNames()
	for _, n := range names {
		if len(gateCases[n]) == 0 {
			t.Errorf("nav builtin %s has no gate case", n)
		}
	}
	for n := range gateCases {
		if !slices.Contains(names, n) {
			t.Errorf("gate case for %s, which nav does not register", n)
		}
	}
	for _, n := range names {
		for _, tc := range gateCases[n] {
			t.Run(tc.src, func(t *testing.T) { runGateCase(t, tc) })
		}
	}
}

func runGateCase(t *testing.T, tc gateCase) {
	var asked []host.Op
	deny := host.AuthorizerFunc(func(ctx context.Context, op host.Op) error {
		asked = append(asked, op)
		return host.DenyAll.Authorize(ctx, op)
	})
	rec := host.NewRecording(host.NewOS(deny))
	in, dir := session(t, rec, map[string]string{"a.txt": "hello", "sub/x.txt": "x"})
	root := filepath.Dir(dir)
	before := snapshot(t, root)
	_, err := in.Eval(context.Background(), tc.src)
	if after := snapshot(t, root); !reflect.DeepEqual(before, after) {
		t.Errorf("tree changed:\nbefore %v\nafter  %v", before, after)
	}
	if in.Dir() != dir {
		t.Errorf("moved to %s", in.Dir())
	}
	switch {
	case tc.denied:
		if code(err) != "denied" {
			t.Fatalf("got %v, want a denial", err)
		}
		if len(asked) != 1 {
			t.Errorf("asked the gate %d times (%v); want exactly the refused op", len(asked), asked)
		}
	default:
		if code(err) != tc.code {
			t.Fatalf("got %v, want code %q", err, tc.code)
		}
		if ops := rec.Ops(); len(ops) != 0 {
			t.Errorf("asked the host for %v; want nothing", ops)
		}
	}
}

// snapshot records every entry under root: mode, mtime and content.
func snapshot(t *testing.T, root string) map[string]string {
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
		desc := fi.Mode().String() + " " + fi.ModTime().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += " " + string(b)
		}
		out[p] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
