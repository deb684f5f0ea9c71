package eval

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/conformance"
	"github.com/shoalgo/shoal/internal/host"
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
		in, err := New(Options{Host: host.NewOS(host.DenyAll), Dir: dir, Env: []string{"HOME=" + dir}})
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
