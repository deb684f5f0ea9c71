package conformance

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

const ratchetHeader = `# Conformance cases known to pass (file/name), one per line, sorted.
# The conformance test fails when a listed case stops passing.
# Regenerate with: go test ./internal/conformance -update-ratchet
`

// ReadRatchet loads the set of case keys recorded as passing. A missing
// file is an empty set.
func ReadRatchet(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("conformance: ratchet: %w", err)
	}
	defer f.Close()
	set := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		set[line] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("conformance: ratchet %s: %w", path, err)
	}
	return set, nil
}

// WriteRatchet records keys, sorted, as the passing set.
func WriteRatchet(path string, keys []string) error {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var b strings.Builder
	b.WriteString(ratchetHeader)
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("conformance: ratchet: %w", err)
	}
	return nil
}

// Diff compares this run with the recorded set. Only cases that ran are
// judged: a listed case that ran and failed is a regression; a passing
// case not listed is newly passing.
func Diff(recorded map[string]bool, results []Result) (regressed, fixed []string) {
	for _, r := range results {
		k := r.File + "/" + r.Name
		switch {
		case recorded[k] && !r.OK:
			regressed = append(regressed, k)
		case !recorded[k] && r.OK:
			fixed = append(fixed, k)
		}
	}
	slices.Sort(regressed)
	slices.Sort(fixed)
	return regressed, fixed
}
