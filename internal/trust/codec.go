package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/reef"
)

// Entry is one trusted directory.
type Entry struct {
	Dir       string             `json:"dir"`
	Digest    string             `json:"digest"`
	Files     []reef.ProjectFile `json:"files"`
	TrustedAt string             `json:"trusted_at"`
}

// storeVersion is the format's version; another is malformed.
const storeVersion = 1

type document struct {
	Version int     `json:"version"`
	Dirs    []Entry `json:"dirs"`
}

// Decode reads a store document strictly: version 1, no unknown
// members, no trailing data, at most MaxEntries directories,
// each absolute and clean, recorded once, with known file names, sane
// sums and a digest that matches its files.
func Decode(data []byte) ([]Entry, error) {
	if len(data) > MaxStoreBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxStoreBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc document
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a trust store: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the document")
	}
	if doc.Version != storeVersion {
		return nil, fmt.Errorf("version %d (expected %d)", doc.Version, storeVersion)
	}
	if len(doc.Dirs) > MaxEntries {
		return nil, fmt.Errorf("%d directories (at most %d)", len(doc.Dirs), MaxEntries)
	}
	seen := make(map[string]bool, len(doc.Dirs))
	for i, e := range doc.Dirs {
		if err := checkEntry(e); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		if seen[e.Dir] {
			return nil, fmt.Errorf("entry %d: %s is recorded twice", i, e.Dir)
		}
		seen[e.Dir] = true
	}
	return doc.Dirs, nil
}

// checkEntry is one entry's validity.
func checkEntry(e Entry) error {
	if err := CheckDir(e.Dir); err != nil {
		return err
	}
	if len(e.Files) > len(reef.ProjectFiles) {
		return fmt.Errorf("%s: %d files (at most %d)", e.Dir, len(e.Files), len(reef.ProjectFiles))
	}
	var names []string
	for _, f := range e.Files {
		if !slices.Contains(reef.ProjectFiles, f.Name) || slices.Contains(names, f.Name) {
			return fmt.Errorf("%s: file %q is not a project file or is listed twice", e.Dir, f.Name)
		}
		names = append(names, f.Name)
		if f.Sum == "" || len(f.Sum) > maxSumBytes || !printable(f.Sum) {
			return fmt.Errorf("%s: file %s has a malformed sum", e.Dir, f.Name)
		}
	}
	if !isHex64(e.Digest) || e.Digest != reef.ProjectDigest(e.Files) {
		return fmt.Errorf("%s: digest does not match its files", e.Dir)
	}
	if _, err := time.Parse(time.RFC3339, e.TrustedAt); err != nil {
		return fmt.Errorf("%s: trusted_at: %w", e.Dir, err)
	}
	return nil
}

// CheckDir reports why dir cannot be recorded: it must be an absolute,
// clean path of valid UTF-8 without control characters, at most
// MaxDirBytes long.
func CheckDir(dir string) error {
	switch {
	case dir == "" || len(dir) > MaxDirBytes:
		return fmt.Errorf("a directory is 1 to %d bytes", MaxDirBytes)
	case !filepath.IsAbs(dir) || filepath.Clean(dir) != dir:
		return fmt.Errorf("%q is not a clean absolute path", dir)
	case !utf8.ValidString(dir) || !printable(dir):
		return fmt.Errorf("%q holds control characters or invalid UTF-8", dir)
	}
	return nil
}

func printable(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == utf8.RuneError })
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Encode writes entries as a store document, sorted by directory.
func Encode(entries []Entry) ([]byte, error) {
	es := slices.Clone(entries)
	slices.SortFunc(es, func(a, b Entry) int { return strings.Compare(a.Dir, b.Dir) })
	for i := range es {
		if es[i].Files == nil {
			es[i].Files = []reef.ProjectFile{}
		}
	}
	if es == nil {
		es = []Entry{}
	}
	data, err := json.MarshalIndent(document{Version: storeVersion, Dirs: es}, "", "  ")
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	if len(data) > MaxStoreBytes {
		return nil, fmt.Errorf("the store would be %d bytes (at most %d); revoke some directories", len(data), MaxStoreBytes)
	}
	return data, nil
}

func sortEntries(es []Entry) {
	slices.SortFunc(es, func(a, b Entry) int { return strings.Compare(a.Dir, b.Dir) })
}
