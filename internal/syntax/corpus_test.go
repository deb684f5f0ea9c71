package syntax

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/corpusdir"
)

// seedCorpusDir is the shared corpus's directory for tests that only take
// seeds from it (no corpus: no seeds); tests that check the corpus call
// corpusdir.ForTest, which skips or fails by SHOAL_REQUIRE_CORPUS.
func seedCorpusDir() string {
	dir, _, _ := corpusdir.Locate(".")
	return dir
}

// dirExists reports whether dir names a directory.
func dirExists(dir string) bool {
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}

// corpusCase is the part of a conformance case the parser cares about.
type corpusCase struct {
	File          string
	Name          string
	Src           string
	ParseError    bool
	ParseContains string
}

// loadCorpus reads every [[case]] of every .toml file in dir with a small
// TOML subset reader (strings, booleans, integers, arrays, comments).
func loadCorpus(dir string) ([]corpusCase, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil {
		return nil, err
	}
	var out []corpusCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		cases, err := parseCorpusTOML(string(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
		for i := range cases {
			cases[i].File = filepath.Base(f)
		}
		out = append(out, cases...)
	}
	return out, nil
}

func parseCorpusTOML(s string) ([]corpusCase, error) {
	var cases []corpusCase
	var cur *corpusCase
	i := 0
	skipWS := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
			i++
		}
	}
	skipLine := func() {
		for i < len(s) && s[i] != '\n' {
			i++
		}
	}
	for i < len(s) {
		skipWS()
		if i >= len(s) {
			break
		}
		switch s[i] {
		case '\n':
			i++
			continue
		case '#':
			skipLine()
			continue
		case '[':
			if strings.HasPrefix(s[i:], "[[case]]") {
				cases = append(cases, corpusCase{})
				cur = &cases[len(cases)-1]
			}
			skipLine()
			continue
		}
		k := i
		for i < len(s) && s[i] != '=' && s[i] != ' ' && s[i] != '\n' {
			i++
		}
		key := s[k:i]
		skipWS()
		if i >= len(s) || s[i] != '=' {
			return nil, fmt.Errorf("offset %d: expected = after key %q", i, key)
		}
		i++
		skipWS()
		val, isStr, n, err := tomlValue(s[i:])
		if err != nil {
			return nil, fmt.Errorf("offset %d: key %s: %w", i, key, err)
		}
		i += n
		if cur == nil {
			continue
		}
		switch key {
		case "name":
			cur.Name = val
		case "src":
			cur.Src = val
		case "parse_error":
			cur.ParseError = !isStr && val == "true"
		case "parse_error_contains":
			cur.ParseContains = val
		}
	}
	return cases, nil
}

// tomlValue decodes one value at the start of s and returns its text, whether
// it was a string, and the bytes consumed.
func tomlValue(s string) (string, bool, int, error) {
	switch {
	case strings.HasPrefix(s, `"""`):
		end := strings.Index(s[3:], `"""`)
		if end < 0 {
			return "", false, 0, fmt.Errorf("unterminated multiline string")
		}
		for end+6 < len(s) && s[3+end+3] == '"' {
			end++
		}
		body := strings.TrimPrefix(s[3:3+end], "\n")
		v, err := tomlUnescape(body)
		return v, true, 3 + end + 3, err
	case strings.HasPrefix(s, `'''`):
		end := strings.Index(s[3:], `'''`)
		if end < 0 {
			return "", false, 0, fmt.Errorf("unterminated multiline literal")
		}
		for 3+end+3 < len(s) && s[3+end+3] == '\'' {
			end++
		}
		return strings.TrimPrefix(s[3:3+end], "\n"), true, 3 + end + 3, nil
	case strings.HasPrefix(s, `"`):
		for j := 1; j < len(s); j++ {
			if s[j] == '\\' {
				j++
				continue
			}
			if s[j] == '"' {
				v, err := tomlUnescape(s[1:j])
				return v, true, j + 1, err
			}
		}
		return "", false, 0, fmt.Errorf("unterminated string")
	case strings.HasPrefix(s, `'`):
		j := strings.IndexByte(s[1:], '\'')
		if j < 0 {
			return "", false, 0, fmt.Errorf("unterminated literal")
		}
		return s[1 : 1+j], true, j + 2, nil
	case strings.HasPrefix(s, "["):
		depth := 0
		for j := 0; j < len(s); j++ {
			switch s[j] {
			case '[':
				depth++
			case ']':
				depth--
				if depth == 0 {
					return s[:j+1], false, j + 1, nil
				}
			case '"', '\'':
				_, _, n, err := tomlValue(s[j:])
				if err != nil {
					return "", false, 0, err
				}
				j += n - 1
			}
		}
		return "", false, 0, fmt.Errorf("unterminated array")
	}
	j := strings.IndexAny(s, "\n#")
	if j < 0 {
		j = len(s)
	}
	return strings.TrimSpace(s[:j]), false, j, nil
}

func tomlUnescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", fmt.Errorf("dangling backslash")
		}
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '"':
			b.WriteByte('"')
		case '\\':
			b.WriteByte('\\')
		case 'u', 'U':
			n := 4
			if s[i] == 'U' {
				n = 8
			}
			if i+n >= len(s)+0 && i+n > len(s)-1+1 {
				return "", fmt.Errorf("short unicode escape")
			}
			var r rune
			if _, err := fmt.Sscanf(s[i+1:i+1+n], "%x", &r); err != nil {
				return "", err
			}
			b.WriteRune(r)
			i += n
		case '\n':
			for i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t' || s[i+1] == '\n' || s[i+1] == '\r') {
				i++
			}
		default:
			return "", fmt.Errorf("unknown escape \\%c", s[i])
		}
	}
	return b.String(), nil
}

func TestCorpusTOMLReader(t *testing.T) {
	doc := `# comment
[[case]]
name = "a"
src = 'x + 1'
value = "2"
[[case]]
name="b"
src = '''
[1, 2]
'''
parse_error = true
parse_error_contains = "no \"pipe\""
fixture = ["a.txt", "b/"]
`
	cases, err := parseCorpusTOML(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 {
		t.Fatalf("got %d cases, want 2", len(cases))
	}
	if cases[0].Src != "x + 1" || cases[0].ParseError {
		t.Errorf("case 0 = %+v", cases[0])
	}
	if cases[1].Src != "[1, 2]\n" || !cases[1].ParseError || cases[1].ParseContains != `no "pipe"` {
		t.Errorf("case 1 = %+v", cases[1])
	}
}

// TestCorpus parses every src in the conformance corpus and checks the
// parse_error expectations.
func TestCorpus(t *testing.T) {
	cases, err := loadCorpus(corpusdir.ForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	parsed, rejected := 0, 0
	for _, c := range cases {
		_, err := Parse(c.Src, ParseOptions{})
		switch {
		case c.ParseError && err == nil:
			t.Errorf("%s/%s: expected a parse error, parsed fine:\n%s", c.File, c.Name, c.Src)
		case c.ParseError:
			if !strings.Contains(err.Error(), c.ParseContains) {
				t.Errorf("%s/%s: error %q does not contain %q", c.File, c.Name, err.Error(), c.ParseContains)
			} else {
				rejected++
			}
		case err != nil:
			t.Errorf("%s/%s: unexpected parse error: %v\n%s", c.File, c.Name, err, c.Src)
		default:
			parsed++
		}
	}
	t.Logf("corpus: %d cases, %d parsed, %d rejected as expected", len(cases), parsed, rejected)
	if len(cases) == 0 {
		t.Fatal("corpus directory has no cases")
	}
}
