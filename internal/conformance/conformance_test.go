package conformance

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/corpusdir"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/stdlib"
	"github.com/shoalgo/shoal/internal/value"
)

var updateRatchet = flag.Bool("update-ratchet", false, "rewrite testdata/passing.txt from this run")

// registry is the standard registry every case's interpreter and every
// explain derivation use, built once as an embedder builds it.
var registry = stdlib.Registry()

const (
	caseTimeout = 10 * time.Second
	ratchetPath = "testdata/passing.txt"
)

// evalOS runs src in a fresh interpreter with an allow-all OS host rooted
// at dir. Nothing is shared between cases, and the process working
// directory is never consulted.
func evalOS(ctx context.Context, dir, src string) (value.Value, error) {
	in, err := eval.New(eval.Options{Registry: registry, Host: host.NewOS(host.AllowAll), Dir: dir, Reef: true, ProjectTrust: reef.TrustEverything})
	if err != nil {
		return nil, err
	}
	return in.Eval(ctx, src)
}

// loadCorpus loads the corpus DefaultDir finds in dir, skipping the test
// when there is none; isDefault reports whether the shared corpus was
// chosen.
func loadCorpus(t *testing.T) (cases []Case, dir string, isDefault bool) {
	t.Helper()
	dir, isDefault, err := DefaultDir(".")
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		missingCorpus(t, "conformance corpus not found at %s: put the shared material at ../shared beside the repository, or set SHOAL_CONFORMANCE_DIR", dir)
	}
	cases, err = LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		missingCorpus(t, "no *.toml cases in %s", dir)
	}
	return cases, dir, isDefault
}

// TestConformance runs the corpus. Failing cases are reported, not fatal;
// the test fails only when a case recorded in the ratchet stops passing.
func TestConformance(t *testing.T) {
	cases, dir, isDefault := loadCorpus(t)

	var (
		mu      sync.Mutex
		results []Result
		skipped []Case
	)
	byFile := map[string][]*Case{}
	var files []string
	for i := range cases {
		c := &cases[i]
		if _, ok := byFile[c.File]; !ok {
			files = append(files, c.File)
		}
		byFile[c.File] = append(byFile[c.File], c)
	}

	t.Run("corpus", func(t *testing.T) {
		for _, file := range files {
			t.Run(file, func(t *testing.T) {
				t.Parallel()
				for _, c := range byFile[file] {
					t.Run(c.Name, func(t *testing.T) {
						if c.Skip != "" {
							mu.Lock()
							skipped = append(skipped, *c)
							mu.Unlock()
							t.Skip(c.Skip)
						}
						t.Parallel()
						tmp, err := filepath.EvalSymlinks(t.TempDir())
						if err != nil {
							t.Fatal(err)
						}
						r := Run(context.Background(), c, tmp, caseTimeout, evalOS)
						mu.Lock()
						results = append(results, r)
						mu.Unlock()
						if !r.OK {
							t.Logf("FAIL %s\nsrc:  %s\nwant: %s\ngot:  %s", c.Key(), c.Src, r.Want, clip(r.Got, 2000))
						}
					})
				}
			})
		}
	})

	sum := Summarize(results, skipped)
	fmt.Println(sum.Line())
	fmt.Println(sum.SplitLine())
	if testing.Verbose() || os.Getenv("SHOAL_CONFORMANCE_FILES") == "1" {
		if err := sum.WriteFiles(os.Stdout); err != nil {
			t.Error(err)
		}
	}
	if p := os.Getenv("SHOAL_CONFORMANCE_SUMMARY"); p != "" {
		if err := os.WriteFile(p, []byte(sum.Line()+"\n"+sum.SplitLine()+"\n"), 0o644); err != nil {
			t.Errorf("writing summary: %v", err)
		}
	}
	if p := os.Getenv("SHOAL_CONFORMANCE_REPORT"); p != "" {
		writeReport(t, p, results)
	}

	if !isDefault {
		t.Logf("corpus %s is not the default one: ratchet not checked", dir)
		return
	}
	checkRatchet(t, results)
}

func writeReport(t *testing.T, path string, results []Result) {
	f, err := os.Create(path)
	if err != nil {
		t.Errorf("report: %v", err)
		return
	}
	if err := WriteReport(f, results); err != nil {
		t.Errorf("report: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("report: %v", err)
	}
}

func checkRatchet(t *testing.T, results []Result) {
	if *updateRatchet {
		var keys []string
		for _, r := range results {
			if r.OK {
				keys = append(keys, r.File+"/"+r.Name)
			}
		}
		if err := WriteRatchet(ratchetPath, keys); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d passing cases to %s", len(keys), ratchetPath)
		return
	}
	recorded, err := ReadRatchet(ratchetPath)
	if err != nil {
		t.Fatal(err)
	}
	regressed, fixed := Diff(recorded, results)
	if len(fixed) > 0 {
		t.Logf("%d cases pass that %s does not list yet; record them with:\n\tgo test ./internal/conformance -update-ratchet\n\t%s",
			len(fixed), ratchetPath, strings.Join(fixed, "\n\t"))
	}
	if len(regressed) > 0 {
		t.Errorf("%d cases listed in %s no longer pass:\n\t%s\n(if a regression is intended, rerun with -update-ratchet)",
			len(regressed), ratchetPath, strings.Join(regressed, "\n\t"))
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// missingCorpus skips a test that has no corpus to run, or fails it when
// the corpus is required (corpusdir.Required).
func missingCorpus(t *testing.T, format string, args ...any) {
	t.Helper()
	if corpusdir.Required() {
		t.Fatalf(format+" (SHOAL_REQUIRE_CORPUS is set: the corpus must be there)", args...)
	}
	t.Skipf(format, args...)
}
