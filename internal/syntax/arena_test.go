package syntax

import (
	"bytes"
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
	tests := []struct{ pos, used, size, want int }{
		{pos: 0, used: 0, size: 32, want: minChunk},
		{pos: 500, used: 50, size: 32, want: 51},        // half done: as many again
		{pos: 100, used: 100, size: 32, want: 128},      // capped at maxChunkBytes/size
		{pos: 999, used: 10, size: 32, want: minChunk},  // nearly done
		{pos: 1000, used: 10, size: 32, want: minChunk}, // at the end
	}
	for _, tc := range tests {
		p.pos = tc.pos
		if got := p.chunkSize(tc.used, tc.size); got != tc.want {
			t.Errorf("chunkSize(pos %d, used %d, size %d) = %d, want %d", tc.pos, tc.used, tc.size, got, tc.want)
		}
	}
}
