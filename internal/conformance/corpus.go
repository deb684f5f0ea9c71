package conformance

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/shoalgo/shoal/internal/corpusdir"
)

// Case is one conformance case. Exactly one expectation is set: Value,
// Error or ParseError.
type Case struct {
	File string // file stem, e.g. "namespaces"
	Name string
	Src  string

	Value         *string // inline rendering of the final value
	Error         string  // language error code
	ErrorContains string  // substring of the error's message or hint
	ParseError    bool
	ParseContains string // substring of the parse error's message or hint

	Fixture []string // files to create empty; names ending in "/" are directories
	Skip    string   // reason not to run; "" means run

	Problem string // why the case is malformed, if it is
}

// Key identifies a case across runs: "file/name".
func (c *Case) Key() string { return c.File + "/" + c.Name }

// rawCase mirrors the TOML shape loosely so one odd case cannot stop the
// file from loading.
type rawCase struct {
	Name               string   `toml:"name"`
	Src                string   `toml:"src"`
	Value              any      `toml:"value"`
	Error              string   `toml:"error"`
	ErrorContains      string   `toml:"error_contains"`
	ParseError         bool     `toml:"parse_error"`
	ParseErrorContains string   `toml:"parse_error_contains"`
	Fixture            []string `toml:"fixture"`
	Skip               any      `toml:"skip"`
}

// LoadFile reads the cases of one corpus file.
func LoadFile(path string) ([]Case, error) {
	var doc struct {
		Case []rawCase `toml:"case"`
	}
	if _, err := toml.DecodeFile(path, &doc); err != nil {
		return nil, fmt.Errorf("conformance: %s: %w", path, err)
	}
	stem := strings.TrimSuffix(filepath.Base(path), ".toml")
	cases := make([]Case, 0, len(doc.Case))
	for _, r := range doc.Case {
		c := Case{
			File: stem, Name: r.Name, Src: r.Src,
			Error: r.Error, ErrorContains: r.ErrorContains,
			ParseError: r.ParseError, ParseContains: r.ParseErrorContains,
			Fixture: r.Fixture,
		}
		switch v := r.Value.(type) {
		case nil:
		case string:
			c.Value = &v
		default:
			c.Problem = fmt.Sprintf("value must be a string, not %T", v)
		}
		switch s := r.Skip.(type) {
		case nil:
		case bool:
			if s {
				c.Skip = "skip = true"
			}
		case string:
			c.Skip = s
			if s == "" {
				c.Skip = "skipped"
			}
		default:
			c.Problem = fmt.Sprintf("skip must be a string or bool, not %T", s)
		}
		n := 0
		if c.Value != nil {
			n++
		}
		if c.Error != "" {
			n++
		}
		if c.ParseError {
			n++
		}
		if n != 1 && c.Problem == "" {
			c.Problem = fmt.Sprintf("case needs exactly one of value, error, parse_error (has %d)", n)
		}
		if c.Name == "" && c.Problem == "" {
			c.Problem = "case has no name"
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// LoadDir reads every *.toml file in dir, in name order.
func LoadDir(dir string) ([]Case, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	sort.Strings(paths)
	var all []Case
	for _, p := range paths {
		cs, err := LoadFile(p)
		if err != nil {
			return nil, err
		}
		all = append(all, cs...)
	}
	return all, nil
}

// DefaultDir locates the shared corpus (corpusdir.Locate): isDefault
// reports whether the shared corpus was chosen over $SHOAL_CONFORMANCE_DIR.
func DefaultDir(start string) (dir string, isDefault bool, err error) {
	return corpusdir.Locate(start)
}
