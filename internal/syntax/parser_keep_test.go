package syntax

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// keepSources returns sources of varied shape and size for the keeping
// Parser tests: the inline fuzz seeds, the benchmark script, and the
// conformance corpus when it is present.
func keepSources(t *testing.T) []string {
	t.Helper()
	srcs := append([]string{benchSource(), strings.Repeat(benchSource(), 4)}, inlineSeeds...)
	if dir := seedCorpusDir(); dirExists(dir) {
		cases, err := loadCorpus(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			srcs = append(srcs, c.Src)
		}
	}
	return srcs
}

// TestKeepingParserMatchesParse parses every source with one keeping Parser,
// forwards and then backwards (so big trees are followed by small ones and
// the reverse), and checks each answer, tree or error, against a fresh
// Parse: a reused chunk that was not fully cleared would show up as a
// stray field or node.
func TestKeepingParserMatchesParse(t *testing.T) {
	srcs := keepSources(t)
	var ps Parser
	n := 0
	check := func(src string) {
		for _, opts := range []ParseOptions{{}, {REPL: true}} {
			want, werr := Parse(src, opts)
			got, gerr := ps.Parse(src, opts)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("fresh error %v, keeping error %v for %q", werr, gerr, src)
			}
			if werr != nil {
				if *werr.(*Error) != *gerr.(*Error) {
					t.Fatalf("fresh error %+v, keeping error %+v for %q", werr, gerr, src)
				}
				continue
			}
			wj, err := MarshalProgram(want)
			if err != nil {
				t.Fatal(err)
			}
			gj, err := MarshalProgram(got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(gj, wj) {
				t.Fatalf("keeping Parser differs from Parse for %q:\n got %s\nwant %s", src, gj, wj)
			}
			n++
		}
	}
	for _, src := range srcs {
		check(src)
	}
	for i := len(srcs) - 1; i >= 0; i-- {
		check(srcs[i])
	}
	if n < 20 {
		t.Fatalf("only %d sources parsed", n)
	}
}

// TestKeepingParserSteadyStateAllocs checks the point of a keeping Parser:
// once warm, parsing the benchmark script allocates only the few nodes the
// arena does not pool, not the tree. (Counts are compared with Parse's, not
// fixed, since the race detector changes them.)
func TestKeepingParserSteadyStateAllocs(t *testing.T) {
	src := benchSource()
	var ps Parser
	for i := 0; i < 3; i++ {
		if _, err := ps.Parse(src, ParseOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	keptAllocs, keptBytes := allocsPerParse(t, func() (*Program, error) { return ps.Parse(src, ParseOptions{}) })
	freshAllocs, freshBytes := allocsPerParse(t, func() (*Program, error) { return Parse(src, ParseOptions{}) })
	t.Logf("per parse: keeping Parser %d allocations, %d bytes; Parse %d allocations, %d bytes",
		keptAllocs, keptBytes, freshAllocs, freshBytes)
	if keptAllocs*4 > freshAllocs || keptBytes*50 > freshBytes {
		t.Errorf("keeping Parser allocates %d times / %d bytes per parse, Parse %d / %d: want under a quarter of the allocations and a fiftieth of the bytes",
			keptAllocs, keptBytes, freshAllocs, freshBytes)
	}
}

// allocsPerParse runs parse 50 times and returns the mean allocations and
// bytes allocated per run.
func allocsPerParse(t *testing.T, parse func() (*Program, error)) (allocs, bytes uint64) {
	t.Helper()
	const runs = 50
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < runs; i++ {
		if _, err := parse(); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	return (after.Mallocs - before.Mallocs) / runs, (after.TotalAlloc - before.TotalAlloc) / runs
}

// TestKeepingParserResetForgets checks that Reset leaves no reference to the
// old tree or source: every kept chunk is zero to its full capacity, no
// chunk is current, and the source is gone.
func TestKeepingParserResetForgets(t *testing.T) {
	var ps Parser
	src := strings.Repeat(benchSource(), 3)
	if _, err := ps.Parse(src, ParseOptions{}); err != nil {
		t.Fatal(err)
	}
	ps.Reset()
	p := ps.p
	if p.src != "" || p.parsed {
		t.Fatalf("after Reset: src %d bytes, parsed %v", len(p.src), p.parsed)
	}
	kept := 0
	ar := reflect.ValueOf(&p.ar).Elem()
	for i := 0; i < ar.NumField(); i++ {
		f := ar.Field(i)
		if f.Kind() != reflect.Struct {
			continue
		}
		name := ar.Type().Field(i).Name
		for _, cur := range []string{"buf", "chunk"} {
			if c := f.FieldByName(cur); c.IsValid() && c.Cap() != 0 {
				t.Errorf("%s.%s still current after Reset (cap %d)", name, cur, c.Cap())
			}
		}
		if full := f.FieldByName("full"); full.Len() != 0 {
			t.Errorf("%s.full holds %d chunks after Reset", name, full.Len())
		}
		spare := f.FieldByName("spare")
		budget := 0
		for j := 0; j < spare.Len(); j++ {
			c := spare.Index(j)
			whole := c.Slice(0, c.Cap())
			for k := 0; k < whole.Len(); k++ {
				if !whole.Index(k).IsZero() {
					t.Fatalf("%s: kept chunk %d slot %d is not cleared", name, j, k)
				}
			}
			budget += c.Cap() * int(whole.Type().Elem().Size())
			kept++
		}
		if budget > maxKeptBytes {
			t.Errorf("%s keeps %d bytes of chunks, more than %d", name, budget, maxKeptBytes)
		}
	}
	if kept == 0 {
		t.Error("Reset kept no chunk for the next parse")
	}
	// A second Reset changes nothing, and the next parse still works.
	ps.Reset()
	if _, err := ps.Parse("let x = 1", ParseOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestKeepingParserBoundsKeptMemory parses a large source (~1 MB) and
// checks the Parser keeps at most maxKeptBytes of chunks per node kind.
func TestKeepingParserBoundsKeptMemory(t *testing.T) {
	var ps Parser
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "let v%d = [%d, \"s%d\", {k: %d}].map(x => x)\n", i, i, i, i)
	}
	if _, err := ps.Parse(b.String(), ParseOptions{}); err != nil {
		t.Fatal(err)
	}
	ps.Reset()
	total := 0
	ar := reflect.ValueOf(&ps.p.ar).Elem()
	for i := 0; i < ar.NumField(); i++ {
		f := ar.Field(i)
		if f.Kind() != reflect.Struct {
			continue
		}
		spare := f.FieldByName("spare")
		bytes := 0
		for j := 0; j < spare.Len(); j++ {
			bytes += spare.Index(j).Cap() * int(spare.Index(j).Type().Elem().Size())
		}
		if bytes > maxKeptBytes {
			t.Errorf("%s keeps %d bytes, more than %d", ar.Type().Field(i).Name, bytes, maxKeptBytes)
		}
		total += bytes
	}
	if total == 0 {
		t.Error("nothing kept")
	}
	t.Logf("kept %d bytes across node kinds after a %d-byte source", total, b.Len())
}
