package libtest

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
)

// GateCase is one program run under a deny-all host. A denied case fails
// with `denied` after the gate was asked exactly once; any other asks the
// host for nothing and fails with Code ("" for success). Neither changes
// the tree. (eval's TestGateDenyAll is the model; a library package's
// gate_test.go has the rows of its own entries.)
type GateCase struct {
	Src    string
	Denied bool
	Code   string
}

// GateCases are a part's gate cases by entry name: its builtins, its
// methods that have code, its functions.
type GateCases struct {
	Builtins, Methods, Funcs map[string][]GateCase
}

// RunGate checks that every entry of part has a case and every case names
// an entry of part, then runs each case in a fresh Session holding files.
func RunGate(t *testing.T, part *eval.Part, cases GateCases, files map[string]string) {
	t.Helper()
	var builtins, methods, funcs []string
	for _, b := range part.Builtins {
		builtins = append(builtins, b.Name)
	}
	for _, m := range part.Methods {
		if m.Call != nil {
			methods = append(methods, m.Name)
		}
	}
	for _, f := range part.Funcs {
		funcs = append(funcs, f.Name)
	}
	coverage(t, "builtin", builtins, cases.Builtins)
	coverage(t, "method", methods, cases.Methods)
	coverage(t, "function", funcs, cases.Funcs)
	for _, m := range []map[string][]GateCase{cases.Builtins, cases.Methods, cases.Funcs} {
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			for _, tc := range m[n] {
				t.Run(tc.Src, func(t *testing.T) { runGateCase(t, tc, files) })
			}
		}
	}
}

// coverage reports entries without a case and cases for no entry.
func coverage(t *testing.T, kind string, names []string, cases map[string][]GateCase) {
	t.Helper()
	for _, n := range names {
		if len(cases[n]) == 0 {
			t.Errorf("%s %s has no gate case", kind, n)
		}
	}
	for n := range cases {
		if !slices.Contains(names, n) {
			t.Errorf("gate case for %s %s, which the part does not register", kind, n)
		}
	}
}

func runGateCase(t *testing.T, tc GateCase, files map[string]string) {
	var asked []host.Op
	deny := host.AuthorizerFunc(func(ctx context.Context, op host.Op) error {
		asked = append(asked, op)
		return host.DenyAll.Authorize(ctx, op)
	})
	rec := host.NewRecording(host.NewOS(deny))
	in, dir := Session(t, rec, files)
	root := filepath.Dir(dir)
	before := evaltest.Snapshot(t, root)
	_, err := in.Eval(context.Background(), tc.Src)
	if after := evaltest.Snapshot(t, root); !reflect.DeepEqual(before, after) {
		t.Errorf("tree changed:\nbefore %v\nafter  %v", before, after)
	}
	if in.Dir() != dir {
		t.Errorf("moved to %s", in.Dir())
	}
	switch {
	case tc.Denied:
		if evaltest.Code(err) != "denied" {
			t.Fatalf("got %v, want a denial", err)
		}
		if len(asked) != 1 {
			t.Errorf("asked the gate %d times (%v); want exactly the refused op", len(asked), asked)
		}
	default:
		if evaltest.Code(err) != tc.Code {
			t.Fatalf("got %v, want code %q", err, tc.Code)
		}
		if ops := rec.Ops(); len(ops) != 0 {
			t.Errorf("asked the host for %v; want nothing", ops)
		}
	}
}
