package stdlib

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/lib/clock"
	"github.com/shoalgo/shoal/internal/lib/journal"
	"github.com/shoalgo/shoal/internal/lib/reefcmd"
	"github.com/shoalgo/shoal/internal/lib/sys"
	"github.com/shoalgo/shoal/internal/lib/term"
	"github.com/shoalgo/shoal/internal/value"
)

// The deny-all gate rows of the system libraries (sys, journal, reefcmd,
// clock, term):
// eval's TestGateDenyAll is the model and internal/lib/nav's gate_test.go
// the per-package form (internal/libtest's RunGate). They are kept here,
// one runner for the packages, because RunGate has no rows for namespace
// members (os); the fixture, snapshot and error code are
// internal/evaltest's.

// gateCase is one program run under a deny-all host: a denied case fails
// with `denied` after the gate was asked exactly once; any other asks the
// host for nothing and fails with code ("" for success). Neither changes
// the tree.
type gateCase struct {
	src    string
	denied bool
	code   string
}

// gateMemberCases has cases for every member of the os namespace.
var gateMemberCases = map[string][]gateCase{
	"pid":      {{src: "os.pid()", denied: true}},
	"hostname": {{src: "os.hostname()", denied: true}},
	"uptime":   {{src: "os.uptime()", denied: true}},
	"platform": {{src: "os.platform()", denied: true}},
	"name":     {{src: "os.name()", denied: true}},
	"arch":     {{src: "os.arch()", denied: true}},
	"cpus":     {{src: "os.cpus()", denied: true}, {src: `os.cpus("x")`, code: "arg_error"}},
	"env":      {{src: "os.env().len() > 0"}},
	"username": {{src: "os.username()"}}, // USER is set in the session environment
}

// gateJournalCases has cases for every builtin of the journal library. No
// journal in this session: they touch nothing.
var gateJournalCases = map[string][]gateCase{
	"journal": {{src: "journal", code: "unavailable"}, {src: "journal --limit=0", code: "arg_error"}},
	"history": {{src: "history --head=rm", code: "unavailable"}},
	"undo":    {{src: "undo", code: "unavailable"}, {src: "undo 3", code: "unavailable"}, {src: "undo x", code: "arg_error"}},
}

// TestGateDenyAllJournal: every builtin of the journal library has a row,
// and each row holds.
func TestGateDenyAllJournal(t *testing.T) {
	r, err := eval.NewRegistry(journal.Part())
	if err != nil {
		t.Fatal(err)
	}
	checkGateRows(t, r.BuiltinNames(), gateJournalCases)
}

// gateReefCases has cases for the reef command. Reef discovery is off in
// these sessions (Options.Reef): nothing is constrained, so the table is
// empty and lock finds no scope.
var gateReefCases = map[string][]gateCase{
	"reef": {{src: "reef"}, {src: "reef lock", code: "reef_not_found"}, {src: "reef add x@1", denied: true},
		{src: "reef add x", code: "arg_error"}, {src: "reef bogus", code: "arg_error"}},
}

// TestGateDenyAllReef: the reef command has a row, and each row holds.
func TestGateDenyAllReef(t *testing.T) {
	r, err := eval.NewRegistry(reefcmd.Part())
	if err != nil {
		t.Fatal(err)
	}
	checkGateRows(t, r.BuiltinNames(), gateReefCases)
}

// gateClockCases has cases for every value function of the clock
// library.
var gateClockCases = map[string][]gateCase{
	"every": {{src: "every(1s)", denied: true}, {src: "every(0s)", code: "arg_error"}},
}

// TestGateDenyAllClock: every function of the clock library has a row,
// and each row holds.
func TestGateDenyAllClock(t *testing.T) {
	r, err := eval.NewRegistry(clock.Part())
	if err != nil {
		t.Fatal(err)
	}
	checkGateRows(t, r.FuncNames(), gateClockCases)
}

// gateTermCases has cases for every method of the terminal library:
// with no terminal it never asks the host.
var gateTermCases = map[string][]gateCase{
	"pick": {{src: "[1].pick()", code: "arg_error"}, {src: `[{a: 1}].pick(multi: true)`, code: "arg_error"}},
}

// TestGateDenyAllTerm: every method of the terminal library has a row,
// and each row holds.
func TestGateDenyAllTerm(t *testing.T) {
	r, err := eval.NewRegistry(term.Part())
	if err != nil {
		t.Fatal(err)
	}
	// The part's own methods: those an empty registry (the value
	// package's methods alone) does not have.
	empty, err := eval.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range []value.Kind{value.KList, value.KTable} {
		base := empty.MethodNames(k)
		for _, n := range r.MethodNames(k) {
			if !slices.Contains(base, n) && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	checkGateRows(t, names, gateTermCases)
}

// TestGateDenyAllSys: every member of the os namespace has a row, and
// each row holds.
func TestGateDenyAllSys(t *testing.T) {
	r, err := eval.NewRegistry(sys.Part())
	if err != nil {
		t.Fatal(err)
	}
	checkGateRows(t, r.NamespaceMembers("os"), gateMemberCases)
}

// checkGateRows checks every name has a row and every row a name, then
// runs the rows.
func checkGateRows(t *testing.T, names []string, cases map[string][]gateCase) {
	t.Helper()
	for _, n := range names {
		if len(cases[n]) == 0 {
			t.Errorf("%s has no gate case", n)
		}
	}
	for n := range cases {
		if !slices.Contains(names, n) {
			t.Errorf("gate case for %s, which is not registered", n)
		}
	}
	for _, n := range names {
		for _, tc := range cases[n] {
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
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "work")
	evaltest.Fixture(t, dir, map[string]string{"a.txt": "hello", "sub/x.txt": "x"})
	in, err := eval.New(eval.Options{Registry: Registry(), Host: rec, Dir: dir,
		Env: []string{"HOME=" + root, "PATH=/usr/bin:/bin", "USER=gate"}})
	if err != nil {
		t.Fatal(err)
	}
	before := evaltest.Snapshot(t, root)
	_, err = in.Eval(context.Background(), tc.src)
	if after := evaltest.Snapshot(t, root); !reflect.DeepEqual(before, after) {
		t.Errorf("tree changed:\nbefore %v\nafter  %v", before, after)
	}
	switch {
	case tc.denied:
		if evaltest.Code(err) != value.CodeDenied {
			t.Fatalf("got %v, want a denial", err)
		}
		if len(asked) != 1 {
			t.Errorf("asked the gate %d times (%v); want exactly the refused op", len(asked), asked)
		}
	default:
		if evaltest.Code(err) != tc.code {
			t.Fatalf("got %v, want code %q", err, tc.code)
		}
		if ops := rec.Ops(); len(ops) != 0 {
			t.Errorf("asked the host for %v; want nothing", ops)
		}
	}
}
