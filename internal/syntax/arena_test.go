package syntax

import (
	"bytes"
	"reflect"
	"sync"
	"testing"
)

// TestParserReuseKeepsTrees checks that recycling pooled parsers never
// changes a tree already returned: a later parse (also one that fails
// midway) must not write into earlier chunks or scratch-built slices.
func TestParserReuseKeepsTrees(t *testing.T) {
	srcs := []string{
		benchSource(),
		"let s = \"a\\n{x} b {y}\"\nmatch v { [a, ...r] => f(a, b: 2), {k: 1} => 3, _ => 4 }",
		"fn f(a: list<int>?, ...r) -> str { echo --x=1 (a) > out.txt }",
	}
	progs := make([]*Program, len(srcs))
	want := make([][]byte, len(srcs))
	for i, src := range srcs {
		prog, err := Parse(src, ParseOptions{})
		if err != nil {
			t.Fatalf("parse %d: %v", i, err)
		}
		progs[i] = prog
		if want[i], err = MarshalProgram(prog); err != nil {
			t.Fatal(err)
		}
	}
	for _, src := range append(srcs, "let x = [1, f(2, \"{y\"", "match x { 1 => [a, b") {
		_, _ = Parse(src, ParseOptions{})
	}
	for i, prog := range progs {
		got, err := MarshalProgram(prog)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want[i]) {
			t.Errorf("tree %d changed after later parses", i)
		}
	}
}

// TestParseConcurrent parses from several goroutines at once (run with
// -race) and checks each result against a sequential parse.
func TestParseConcurrent(t *testing.T) {
	src := benchSource()
	prog, err := Parse(src, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := MarshalProgram(prog)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 3; i++ {
				p, err := Parse(src, ParseOptions{})
				if err != nil {
					errs <- err.Error()
					return
				}
				got, err := MarshalProgram(p)
				if err != nil || !bytes.Equal(got, want) {
					errs <- "concurrent parse differs from sequential parse"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestChunkSize(t *testing.T) {
	p := &parser{src: string(make([]byte, 1000))}
	p.ar.lastLen = 2000
	tests := []struct{ pos, used, last, size, want int }{
		{pos: 0, used: 0, size: 32, want: minChunk},
		{pos: 500, used: 50, size: 32, want: 51},                            // half done: as many again
		{pos: 100, used: 100, size: 32, want: maxChunkBytes / 32},           // capped at maxChunkBytes/size
		{pos: 999, used: 10, size: 32, want: minChunk},                      // nearly done
		{pos: 1000, used: 10, size: 32, want: minChunk},                     // at the end
		{pos: 0, used: 0, last: 100, size: 32, want: 51},                    // first chunk: half the last parse's source
		{pos: 500, used: 0, last: 100, size: 32, want: 26},                  // first chunk late: the rest's share
		{pos: 0, used: 0, last: 100000, size: 32, want: maxChunkBytes / 32}, // capped
	}
	for _, tc := range tests {
		p.pos = tc.pos
		if got := p.chunkSize(tc.used, tc.last, tc.size); got != tc.want {
			t.Errorf("chunkSize(pos %d, used %d, size %d) = %d, want %d", tc.pos, tc.used, tc.size, got, tc.want)
		}
	}
}

// TestSeqProjection checks that a recycled seq sizes its first chunk from
// what the previous parse took, scaled to the new source length.
func TestSeqProjection(t *testing.T) {
	tests := []struct{ taken, lastLen, srcLen, wantHint int }{
		{taken: 0, lastLen: 1000, srcLen: 1000, wantHint: 0},   // nothing learned
		{taken: 40, lastLen: 0, srcLen: 1000, wantHint: 0},     // no previous source
		{taken: 40, lastLen: 1000, srcLen: 1000, wantHint: 41}, // same size
		{taken: 40, lastLen: 1000, srcLen: 10, wantHint: 1},    // much smaller source
	}
	for _, tc := range tests {
		var s seq[*Var]
		s.taken = tc.taken
		r := s.recycled(false)
		r.project(tc.srcLen, tc.lastLen)
		if r.hint != tc.wantHint {
			t.Errorf("taken %d, lastLen %d, srcLen %d: hint %d, want %d", tc.taken, tc.lastLen, tc.srcLen, r.hint, tc.wantHint)
		}
		mark := r.mark()
		r.push(&Var{Name: "x"})
		out := r.take(mark)
		if len(out) != 1 || cap(out) != 1 || out[0].Name != "x" {
			t.Errorf("take after projection = %v (cap %d)", out, cap(out))
		}
		if want := max(minChunk, min(tc.wantHint, maxChunkBytes/8)); cap(r.chunk) != want {
			t.Errorf("first chunk capacity %d, want %d", cap(r.chunk), want)
		}
	}
}

// TestRebindSameScope checks that rebinding a name in one scope replaces
// its binding, and that a nested scope's bindings still go away on pop.
func TestRebindSameScope(t *testing.T) {
	p := &parser{}
	p.bind("x", bindValue)
	p.bind("y", bindValue)
	p.bind("x", bindCommand)
	if got := p.lookup("x"); got != bindCommand {
		t.Errorf("lookup(x) = %v, want command", got)
	}
	if len(p.binds) != 2 {
		t.Errorf("binds = %v, want 2 entries", p.binds)
	}
	p.push()
	p.bind("x", bindValue)
	if got := p.lookup("x"); got != bindValue {
		t.Errorf("inner lookup(x) = %v, want value", got)
	}
	p.pop()
	if got := p.lookup("x"); got != bindCommand {
		t.Errorf("lookup(x) after pop = %v, want command", got)
	}
}

// TestArenaResetDropsChunks checks that resetting the arena after a parse
// leaves no chunk of the finished tree behind (a slab or seq missing from
// reset would hand the next parse slots in the old tree's chunks) and keeps
// the per-kind counts that size the next parse's first chunks.
func TestArenaResetDropsChunks(t *testing.T) {
	src := benchSource()
	p := new(parser)
	p.clearCache()
	p.src = src
	p.ar.prepare(len(src))
	p.parseStmts(false)
	p.ar.reset(len(src))
	if p.ar.lastLen != len(src) {
		t.Errorf("lastLen = %d, want %d", p.ar.lastLen, len(src))
	}
	ar := reflect.ValueOf(&p.ar).Elem()
	learned := 0
	for i := 0; i < ar.NumField(); i++ {
		f := ar.Field(i)
		if f.Kind() != reflect.Struct {
			continue
		}
		name := ar.Type().Field(i).Name
		for _, chunk := range []string{"buf", "chunk"} {
			if c := f.FieldByName(chunk); c.IsValid() && c.Cap() != 0 {
				t.Errorf("%s.%s keeps a chunk of capacity %d after reset", name, chunk, c.Cap())
			}
		}
		if u := f.FieldByName("used"); u.IsValid() && u.Int() != 0 {
			t.Errorf("%s.used = %d after reset", name, u.Int())
		}
		if l := f.FieldByName("last"); l.IsValid() && l.Int() > 0 {
			learned++
		}
	}
	if learned == 0 {
		t.Error("reset kept no per-kind counts")
	}
}
