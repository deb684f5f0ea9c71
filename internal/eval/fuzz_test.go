package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/conformance"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/reclaim"
	"github.com/shoalgo/shoal/internal/value"
)

// FuzzEval evaluates arbitrary source under a deny-all host with a short
// deadline. Any result is fine (a value, a language error, a parse error);
// a panic, or an error that is not a *value.Error, fails:
//
//	go test -run '^$' -fuzz '^FuzzEval$' -fuzztime 60s ./internal/eval/
func FuzzEval(f *testing.F) {
	for _, s := range []string{
		"let xs = [3, 1, 2]\nxs.sort().map(x => x * 10)",
		"{a: 1, b: [1, 2]}.b.len()",
		`"abc".upper() + "{1 + 2}"`,
		"match 3 { 1 | 2 => \"low\", n if n > 2 => \"high\", _ => \"?\" }",
		"fn f(a, b = 2, ...r) { a + b + r.len() }\nf(1, 2, 3, 4)",
		"try { assert(false) } catch e { e.code }",
		"1kb + 2mb", "5s * 3", "t\"2024-01-02T03:04:05Z\".year",
		"[{n: 1}, {n: 2}].where(.n > 1).sort_by(.n)",
		"json.parse(\"[1, {\\\"a\\\": null}]\")", "math.max(1, 2)",
	} {
		f.Add(s)
	}
	if dir, _, err := conformance.DefaultDir("."); err == nil {
		if cases, err := conformance.LoadDir(dir); err == nil {
			for i, c := range cases {
				if i%3 == 0 && !conformance.IsHostFile(c.File) {
					f.Add(c.Src)
				}
			}
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.DenyAll), Dir: dir, Env: []string{"HOME=" + dir}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		v, err := evalNoPanic(ctx, in, src)
		if err != nil {
			if _, ok := err.(*panicError); ok {
				t.Fatalf("%v\nsource: %q", err, src)
			}
			return
		}
		_ = value.Inline(v)
		_ = value.Display(v)
	})
}

type panicError struct{ v any }

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.v) }

func evalNoPanic(ctx context.Context, in *Interp, src string) (v value.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{r}
		}
	}()
	return in.Eval(ctx, src)
}

// FuzzEvalBudget evaluates arbitrary source, seeded with programs that
// build and keep large values, in a session with a small memory budget
// under a kernel-wide one. Any result is fine except a panic, an error
// that is not a language error, a quota_exceeded that does not name its
// budget, a budget whose usage ever passed its limit or went below zero
// (a charge released twice), or a result that keeps far more alive than
// the budget allows:
//
//	go test -run '^$' -fuzz '^FuzzEvalBudget$' -fuzztime 60s ./internal/eval/
func FuzzEvalBudget(f *testing.F) {
	for _, s := range []string{
		`var s = "x"; while true { s = s + s }`,
		`var keep = []; for i in 0..100 { var s = "y"; for j in 0..18 { s = s + s }; keep = keep + [s + i.str()] }; keep.len()`,
		`(0..1000000).map(x => x * 2).len()`,
		`var keep = []; for i in 0..50 { keep = keep + [(0..100000).map(x => x)] }; keep`,
		`var x = []; for i in 0..100000 { x = [x, i] }; x`,
		`(0..3000).map(i => { var s = "z"; for j in 0..14 { s = s + s }; () => s + i.str() })`,
		`var r = {}; for i in 0..2000 { r = r.with("k{i}", "v" * 1) }; r`,
		`var s = ""; for i in 0..100000 { s += "abcdefghij" }; s.len()`,
		`let b = "q"; var l = [b]; for i in 0..20 { l = l + l }; l.len()`,
		`try { var s = "w"; while true { s = s + s } } catch e { [e.code, e.msg] }`,
		`fn f(n) { var s = "r"; for i in 0..12 { s = s + s }; if n > 0 { [s, f(n - 1)] } else { [s] } }; f(200)`,
		`(0..200).map(i => (0..1000).map(j => "cell-{i}-{j}"))`,
	} {
		f.Add(s)
	}
	const (
		sessionLimit = 8 << 20
		kernelLimit  = 12 << 20
		// resultSlack is what a result may keep beyond the session budget:
		// small values held directly by variables are not charged (each
		// under trackMin; see memory.go), and a short program names few.
		resultSlack = 16 << 20
	)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		k := budget.New("kernel memory", kernelLimit, nil).WithReclaim(reclaim.Collect)
		b := budget.New("session memory", sessionLimit, k)
		in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.DenyAll), Dir: dir, Env: []string{"HOME=" + dir}, Budget: b})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		v, err := evalNoPanic(ctx, in, src)
		for _, bb := range []*budget.Budget{b, k} {
			if bb.Peak() > bb.Limit() || bb.Used() < 0 {
				t.Fatalf("%s budget: peak %d, used %d, limit %d\nsource: %q", bb.Name(), bb.Peak(), bb.Used(), bb.Limit(), src)
			}
		}
		if err != nil {
			if _, ok := err.(*panicError); ok {
				t.Fatalf("%v\nsource: %q", err, src)
			}
			if ve, ok := err.(*value.Error); ok && ve.Code == budget.CodeQuotaExceeded && !strings.Contains(ve.Msg, "memory budget") {
				t.Fatalf("quota error %q names no budget\nsource: %q", ve.Msg, src)
			}
			return
		}
		if n := value.Footprint(v, sessionLimit+resultSlack); n > sessionLimit+resultSlack {
			t.Fatalf("the result keeps more than %d bytes alive under a %d budget\nsource: %q", n, sessionLimit, src)
		}
	})
}
