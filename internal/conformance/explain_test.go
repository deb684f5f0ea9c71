package conformance

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/adapters"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

var updateExplain = flag.Bool("update", false, "rewrite testdata/explain.golden from this run")

const explainGolden = "testdata/explain.golden"

// explainLine is one case's explain answer as the golden file keeps it:
// the plan leash.Derive gives (the derivation the kernel's explain method
// and the in-language plan/explain use) and its fingerprint, or the parse
// error. Src is a digest of the source, so a case whose source changed in
// the corpus is told apart from a changed answer.
type explainLine struct {
	Case          string         `json:"case"`
	Src           string         `json:"src"`
	ParseError    string         `json:"parse_error,omitempty"`
	Effects       []leash.Effect `json:"effects,omitempty"`
	Reversibility string         `json:"reversibility,omitempty"`
	Opaque        bool           `json:"opaque,omitempty"`
	Notes         []string       `json:"notes,omitempty"`
	Fingerprint   string         `json:"fingerprint,omitempty"`
}

// explainEnv is a fresh kernel session's derivation environment, fixed so
// the answers do not depend on the machine: the standard registry, a
// working directory, a home, a trash root and the bundled command adapters
// (as the kernel's sessionLeashEnv gives them).
func explainEnv() leash.Env {
	return leash.Env{
		Registry: registry,
		Dir:      "/case",
		Home:     "/home/u",
		Trash:    "/tmp/shoal-trash",
		Adapter:  eval.AdapterDeriver(adapters.Bundled()),
	}
}

// explainCase derives c's explain answer.
func explainCase(c *Case, env leash.Env) explainLine {
	sum := sha256.Sum256([]byte(c.Src))
	out := explainLine{Case: c.Key(), Src: hex.EncodeToString(sum[:8])}
	prog, err := syntax.Parse(c.Src, syntax.ParseOptions{IsBound: env.IsBound})
	if err != nil {
		out.ParseError = err.Error()
		return out
	}
	p := leash.Derive(prog, env)
	out.Effects, out.Reversibility, out.Opaque, out.Notes = p.Effects, p.Reversibility, p.Opaque, p.Notes
	out.Fingerprint = leash.Fingerprint(p, c.Src)
	return out
}

// TestExplainGolden is the behaviour-unchanged check of issue 25
// (acceptance 4): explain's answer on every source of the corpus equals the
// one recorded in testdata/explain.golden, generated before the registry
// moved (regenerate with -update, only for a change meant to alter plans).
// A case the golden file does not hold, or whose source changed since, is
// reported and not compared.
func TestExplainGolden(t *testing.T) {
	cases, _, _ := loadCorpus(t)
	env := explainEnv()
	got := make([]explainLine, 0, len(cases))
	for i := range cases {
		got = append(got, explainCase(&cases[i], env))
	}
	sort.SliceStable(got, func(i, j int) bool { return got[i].Case < got[j].Case })

	if *updateExplain {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		for _, l := range got {
			if err := enc.Encode(l); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(explainGolden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d explain answers to %s", len(got), explainGolden)
		return
	}

	want, err := readExplainGolden(explainGolden)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	compared, fresh := 0, 0
	for _, g := range got {
		w, ok := want[g.Case]
		if !ok || w.Src != g.Src {
			fresh++
			t.Logf("%s: not in %s with this source; not compared", g.Case, explainGolden)
			continue
		}
		compared++
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		if !bytes.Equal(gj, wj) {
			t.Errorf("%s: explain answer changed:\n got: %s\nwant: %s", g.Case, gj, wj)
		}
	}
	if compared == 0 {
		t.Fatalf("no corpus case matched %s", explainGolden)
	}
	t.Logf("explain: %d answers compared, %d not in the golden file", compared, fresh)
}

// readExplainGolden reads the golden file's lines by case key.
func readExplainGolden(path string) (map[string]explainLine, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]explainLine{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var l explainLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			return nil, err
		}
		out[l.Case] = l
	}
	return out, sc.Err()
}
