package eval

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/reclaim"
	"github.com/shoalgo/shoal/internal/value"
)

// budgetSession is an interpreter on the fake host charged to a session
// budget of limit bytes under an unlimited kernel budget, with the kernel's
// reclaim (a forced collection before a charge fails).
func budgetSession(t testing.TB, limit int64) (*Interp, *budget.Budget) {
	t.Helper()
	k := budget.New("kernel memory", 0, nil).WithReclaim(reclaim.Collect)
	b := budget.New("session memory", limit, k)
	in, err := New(Options{Registry: testRegistry, Host: newFakeHost(), Dir: "/work", Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	return in, b
}

// prelude defines rep(n), a string of n bytes (n a power of two).
const prelude = "fn rep(n) { var s = \"x\"; while s.len() < n { s = s + s }; s }\n"

func wantMemQuota(t *testing.T, err error, budgetName string) *value.Error {
	t.Helper()
	var ve *value.Error
	if !errors.As(err, &ve) || ve.Code != budget.CodeQuotaExceeded {
		t.Fatalf("got %v, want %s", err, budget.CodeQuotaExceeded)
	}
	if !strings.Contains(ve.Msg, "the "+budgetName+" budget") || ve.Hint == "" {
		t.Errorf("message %q (hint %q) does not name the %s budget with a hint", ve.Msg, ve.Hint, budgetName)
	}
	return ve
}

// settle collects garbage and waits for cleanups, so budgets show only
// what is still reachable.
func settle() {
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBudgetRefusesWhatIsKept covers the shapes a program can keep memory
// in. Each case keeps about ten times its session's budget alive and must
// end in quota_exceeded long before it gets there; the error is caught
// inside the program where the case says so.
func TestBudgetRefusesWhatIsKept(t *testing.T) {
	const limit = 16 << 20
	for _, c := range []struct{ name, src string }{
		{"strings in a list", `var keep = []; for i in 0..40 { keep = keep + [rep(4194304) + i.str()] }; keep.len()`},
		{"strings in variables", `var a = rep(8388608); var b = a + "1"; var c = a + "2"; var d = a + "3"; var e = a + "4"; var f = a + "5"; var g = a + "6"; var h = a + "7"; var i = a + "8"; var j = a + "9"; var k = a + "10"; var l = a + "11"; var m = a + "12"; var n = a + "13"; var o = a + "14"; var p = a + "15"; var q = a + "16"; var r = a + "17"; var s = a + "18"; var u = a + "19"; 0`},
		{"maps", `var keep = []; for i in 0..40 { keep = keep + [(0..400000).map(x => x + i)] }; keep.len()`},
		{"records", `var keep = []; for i in 0..40 { keep = keep + [{a: rep(4194304) + i.str(), b: i}] }; keep.len()`},
		{"small strings in a big list", `(0..1000000).map(i => "item-" + i.str() + "-padding-padding-padding").len()`},
		{"nested small lists", `(0..400).map(i => (0..1000).map(j => "abcdefghijklmnop" + j.str())).len()`},
		{"closures capturing small strings", `(0..4000).map(i => { let s = rep(32768) + rep(16384) + rep(8192) + i.str(); () => s }).len()`},
		{"interpolation", `var keep = []; for i in 0..40 { let s = rep(4194304); keep = keep + ["{s}{i}"] }; keep.len()`},
		{"compound assignment", `var s = ""; for i in 0..400 { s += rep(1048576) }; s.len()`},
		{"records of small lists", `(0..20000).map(i => {k: (0..100).collect()}).len()`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, b := budgetSession(t, limit)
			_, err := in.Eval(context.Background(), prelude+c.src)
			wantMemQuota(t, err, "session memory")
			if b.Peak() > limit {
				t.Errorf("budget peaked at %d, past its limit %d", b.Peak(), limit)
			}
		})
	}
}

// TestBudgetChargesSessionVariables: small values (each under the size
// charged on its own) kept in many variables of the session's scope are
// charged per name; rebinding a name releases what it held.
func TestBudgetChargesSessionVariables(t *testing.T) {
	var src strings.Builder
	src.WriteString(prelude + "let piece = rep(32768) + rep(16384)\n")
	for i := range 400 { // 400 x 48 KiB = 19 MiB against 16 MiB
		fmt.Fprintf(&src, "let v%d = piece + \"%d\"\n", i, i)
	}
	in, _ := budgetSession(t, 16<<20)
	_, err := in.Eval(context.Background(), src.String())
	wantMemQuota(t, err, "session memory")

	in, b := budgetSession(t, 16<<20)
	if _, err := in.Eval(context.Background(), prelude+`var s = ""; let piece = rep(32768) + rep(16384); for i in 0..1000 { s = piece + i.str() }; s.len()`); err != nil {
		t.Fatalf("rebinding one name: %v", err)
	}
	settle()
	if u := b.Used(); u > 1<<20 {
		t.Errorf("after rebinding one name 1000 times the budget holds %d bytes", u)
	}
	runtime.KeepAlive(in)
}

// TestBudgetLetsDroppedValuesGo: building and dropping far more than the
// budget in a loop succeeds, because dead values release their charges.
func TestBudgetLetsDroppedValuesGo(t *testing.T) {
	in, b := budgetSession(t, 16<<20)
	for _, src := range []string{
		`var n = 0; for i in 0..100 { let s = rep(4194304) + i.str(); n += s.len() }; n`,
		`var n = 0; for i in 0..30 { n += (0..200000).map(x => x * 2).len() }; n`,
		`var s = rep(1048576); for i in 0..200 { s = s + "y"; s = rep(1048576) + i.str() }; s.len()`,
	} {
		if _, err := in.Eval(context.Background(), prelude+src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
	settle()
	if u := b.Used(); u > 4<<20 {
		t.Errorf("after the loops the budget still holds %d bytes", u)
	}
}

// TestBudgetCountsSharedValuesOnce: one big value referenced from many
// places, or produced again by a call, is charged once.
func TestBudgetCountsSharedValuesOnce(t *testing.T) {
	in, b := budgetSession(t, 8<<20)
	src := `let big = rep(4194304)
fn get() { big }
let xs = (0..1000).map(i => big)
let ys = [big, big, big, get(), get()]
var n = 0
for i in 0..1000 { n += [get()].len() }
[xs.len(), ys.len(), n]`
	v, err := in.Eval(context.Background(), prelude+src)
	if err != nil {
		t.Fatal(err)
	}
	if got := value.Inline(v); got != "[1000, 5, 1000]" {
		t.Errorf("got %s", got)
	}
	settle()
	if u := b.Used(); u < 4<<20 || u > 5<<20 {
		t.Errorf("budget holds %d bytes, want about the one 4 MiB string", u)
	}
	runtime.KeepAlive(in)
}

// TestBudgetReleasesWhenDropped: after a refusal, dropping what was kept
// lets the same program run.
func TestBudgetReleasesWhenDropped(t *testing.T) {
	in, b := budgetSession(t, 16<<20)
	if _, err := in.Eval(context.Background(), prelude+`var keep = []; for i in 0..10 { keep = keep + [rep(4194304) + i.str()] }`); err == nil {
		t.Fatal("keeping 40 MiB under 16 MiB succeeded")
	}
	held := b.Used()
	if held < 8<<20 {
		t.Errorf("budget holds only %d bytes while keep is alive", held)
	}
	if _, err := in.Eval(context.Background(), prelude+`keep = []`); err != nil {
		t.Fatal(err)
	}
	settle()
	if u := b.Used(); u > 1<<20 {
		t.Errorf("after keep was dropped the budget holds %d bytes", u)
	}
	if _, err := in.Eval(context.Background(), prelude+`keep = keep + [rep(4194304)]; keep = keep + [rep(4194304)]; keep.len()`); err != nil {
		t.Errorf("after the release: %v", err)
	}
}

// TestQuotaIsCatchable: a refused charge is a language error the program
// may handle; nothing was kept.
func TestQuotaIsCatchable(t *testing.T) {
	in, _ := budgetSession(t, 4<<20)
	v, err := in.Eval(context.Background(), prelude+`try { rep(8388608) } catch e { e.code }`)
	if err != nil || value.Inline(v) != `"quota_exceeded"` {
		t.Errorf("got %v, %v", v, err)
	}
}

// TestBudgetCancelGivesQuota: the kernel's memory guard cancels a running
// evaluation through its budget; the caller sees quota_exceeded naming the
// kernel budget, and no catch inside the program can swallow it.
func TestBudgetCancelGivesQuota(t *testing.T) {
	in, b := budgetSession(t, 0)
	done := make(chan error, 1)
	go func() {
		_, err := in.Eval(context.Background(), prelude+`while true { try { 1 } catch e { 2 } }`)
		done <- err
	}()
	cause := &budget.ExceededError{Name: "kernel memory", Limit: 1 << 30, Used: 1 << 30}
	deadline := time.Now().Add(5 * time.Second)
	for b.Cancel(cause) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the evaluation never registered with its budget")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-done:
		ve := wantMemQuota(t, err, "kernel memory")
		if !strings.Contains(ve.Msg, "cancelled") {
			t.Errorf("message %q does not say the evaluation was cancelled", ve.Msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled evaluation did not stop")
	}
	if _, err := in.Eval(context.Background(), prelude+`1 + 1`); err != nil {
		t.Errorf("the session does not work after a cancel: %v", err)
	}
}

// TestNoBudgetNoCharges: without a budget nothing is tracked.
func TestNoBudgetNoCharges(t *testing.T) {
	in, err := New(Options{Registry: testRegistry, Host: newFakeHost(), Dir: "/work"})
	if err != nil {
		t.Fatal(err)
	}
	if in.meter != nil {
		t.Fatal("a meter without a budget")
	}
	if _, err := in.Eval(context.Background(), prelude+`let s = rep(1048576); s.len()`); err != nil {
		t.Fatal(err)
	}
}

// TestBudgetChargesCapture: a command's captured output is charged while
// it is read; output past the budget gives quota_exceeded, and the budget
// holds nothing once the outcome is gone.
func TestBudgetChargesCapture(t *testing.T) {
	needProgs(t, "sh", "head")
	k := budget.New("kernel memory", 0, nil).WithReclaim(reclaim.Collect)
	b := budget.New("session memory", 4<<20, k)
	dir := t.TempDir()
	in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: dir, Budget: b,
		Env: []string{"PATH=/usr/bin:/bin", "HOME=" + filepath.Dir(dir)}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = in.Eval(context.Background(), `(sh { head -c 10000000 /dev/zero }).stdout.len()`)
	ve := wantMemQuota(t, err, "session memory")
	if !strings.Contains(ve.Msg, "capturing output") {
		t.Errorf("message %q does not say the capture was refused", ve.Msg)
	}
	v, err := in.Eval(context.Background(), `(sh { head -c 1000000 /dev/zero }).stdout.len()`)
	if err != nil || value.Inline(v) != "1000000" {
		t.Fatalf("a capture within the budget: %v, %v", v, err)
	}
	settle()
	if u := b.Used(); u > 1<<20 {
		t.Errorf("budget holds %d bytes after the outcomes are gone", u)
	}
}

// TestBudgetNestedWrappersChargedOnce: wrapping a value in a new list, over
// and over, keeps alive only one small list per step. Each wrapper must be
// charged for itself, not again for everything it wraps (that would charge
// quadratically: 300,000 steps would "use" terabytes).
func TestBudgetNestedWrappersChargedOnce(t *testing.T) {
	for _, src := range []string{
		"var x = []; for i in 0..300000 { x = [x] }; 1",
		"var x = {}; for i in 0..100000 { x = {a: x, n: i} }; 1",
		"var x = [rep(65536)]; for i in 0..100000 { x = [x, i] }; 1",
	} {
		in, b := budgetSession(t, 256<<20)
		if _, err := in.Eval(context.Background(), prelude+src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		settle()
		// The true footprint is well under 200 MiB for each.
		if u := b.Used(); u > 200<<20 {
			t.Errorf("%s: budget holds %d MiB", src, u>>20)
		} else {
			t.Logf("%s: budget holds %d MiB", src, u>>20)
		}
		runtime.KeepAlive(in)
	}
}
