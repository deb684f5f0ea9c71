package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"slices"
)

// hostFiles are the corpus files (path.Match patterns on the stem) whose
// cases exercise the filesystem, processes or streams rather than the
// language core.
var hostFiles = []string{
	"dir-stack", "fs-builtins*", "glob-more", "io*", "list-path-glob-binding",
	"os-namespace", "path-field-accessors", "path-fs-methods", "pipe-and-repl-only",
	"outcome*", "streams*", "stream-sinks-more", "reef*", "adapters-pack",
}

// IsHostFile reports whether a corpus file belongs to the host split.
func IsHostFile(stem string) bool {
	for _, p := range hostFiles {
		if ok, _ := path.Match(p, stem); ok {
			return true
		}
	}
	return false
}

// Tally counts outcomes.
type Tally struct {
	Passed, Failed, Skipped int
}

func (t *Tally) add(r Result) {
	if r.OK {
		t.Passed++
	} else {
		t.Failed++
	}
}

// Summary aggregates a run.
type Summary struct {
	Total   Tally
	Core    Tally // language-core files
	Host    Tally // host files
	PerFile map[string]*Tally
}

// Summarize tallies results; skipped lists the cases not run, by file.
func Summarize(results []Result, skipped []Case) Summary {
	s := Summary{PerFile: map[string]*Tally{}}
	file := func(f string) *Tally {
		t := s.PerFile[f]
		if t == nil {
			t = &Tally{}
			s.PerFile[f] = t
		}
		return t
	}
	for _, r := range results {
		s.Total.add(r)
		file(r.File).add(r)
		if IsHostFile(r.File) {
			s.Host.add(r)
		} else {
			s.Core.add(r)
		}
	}
	for _, c := range skipped {
		s.Total.Skipped++
		file(c.File).Skipped++
		if IsHostFile(c.File) {
			s.Host.Skipped++
		} else {
			s.Core.Skipped++
		}
	}
	return s
}

// Line is the one-line summary CI prints.
func (s Summary) Line() string {
	return fmt.Sprintf("conformance: %d passed, %d failed, %d skipped", s.Total.Passed, s.Total.Failed, s.Total.Skipped)
}

// SplitLine reports the language-core and host figures.
func (s Summary) SplitLine() string {
	return fmt.Sprintf("conformance split: language-core %d/%d passed, host %d/%d passed",
		s.Core.Passed, s.Core.Passed+s.Core.Failed, s.Host.Passed, s.Host.Passed+s.Host.Failed)
}

// WriteFiles writes one line per corpus file, sorted by name.
func (s Summary) WriteFiles(w io.Writer) error {
	names := make([]string, 0, len(s.PerFile))
	for n := range s.PerFile {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		t := s.PerFile[n]
		kind := "core"
		if IsHostFile(n) {
			kind = "host"
		}
		if _, err := fmt.Fprintf(w, "  %-36s %s %4d/%-4d passed  %d skipped\n", n, kind, t.Passed, t.Passed+t.Failed, t.Skipped); err != nil {
			return err
		}
	}
	return nil
}

// WriteReport writes results as JSON lines {"file","name","ok","want","got"}.
func WriteReport(w io.Writer, results []Result) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}
