package eval

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/conformance"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// TestCorpusProgress runs the shared conformance corpus through this
// package and reports passes per file. It runs only when SHOAL_CORPUS is
// set; SHOAL_CORPUS_MIN (a percentage) turns the language pass rate into
// an assertion. SHOAL_CORPUS_FAILS names a file to receive the failures.
func TestCorpusProgress(t *testing.T) {
	if os.Getenv("SHOAL_CORPUS") == "" {
		t.Skip("set SHOAL_CORPUS=1 to run the shared corpus")
	}
	dir, _, err := conformance.DefaultDir(".")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := conformance.LoadDir(dir)
	if err != nil {
		t.Skipf("corpus unavailable: %v", err)
	}
	evalOS := func(ctx context.Context, d, src string) (value.Value, error) {
		in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: d})
		if err != nil {
			return nil, err
		}
		return in.Eval(ctx, src)
	}
	type tally struct{ pass, total int }
	files := map[string]*tally{}
	var fails []string
	langPass, langTotal := 0, 0
	for i := range cases {
		c := &cases[i]
		if c.Skip != "" {
			continue
		}
		tl := files[c.File]
		if tl == nil {
			tl = &tally{}
			files[c.File] = tl
		}
		r := conformance.Run(context.Background(), c, t.TempDir(), 10*time.Second, evalOS)
		tl.total++
		if !conformance.IsHostFile(c.File) {
			langTotal++
		}
		if r.OK {
			tl.pass++
			if !conformance.IsHostFile(c.File) {
				langPass++
			}
			continue
		}
		fails = append(fails, fmt.Sprintf("%s/%s\n  src: %s\n  want: %s\n  got:  %s", c.File, c.Name,
			strings.ReplaceAll(c.Src, "\n", "\n       "), r.Want, r.Got))
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%-32s %3d/%3d\n", n, files[n].pass, files[n].total)
	}
	t.Logf("per file:\n%s", b.String())
	t.Logf("language: %d/%d", langPass, langTotal)
	if p := os.Getenv("SHOAL_CORPUS_FAILS"); p != "" {
		if err := os.WriteFile(p, []byte(strings.Join(fails, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if m := os.Getenv("SHOAL_CORPUS_MIN"); m != "" {
		min, err := strconv.Atoi(m)
		if err != nil {
			t.Fatalf("SHOAL_CORPUS_MIN: %v", err)
		}
		if langTotal > 0 && langPass*100 < min*langTotal {
			t.Errorf("language pass rate %d/%d is below %d%%", langPass, langTotal, min)
		}
	}
}
