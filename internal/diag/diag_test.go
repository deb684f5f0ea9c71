package diag

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func spanned(code, msg, hint string, start, end int) *value.Error {
	e := value.Errorf(code, "%s", msg).At(syntax.Span{Start: int32(start), End: int32(end)})
	if hint != "" {
		e = e.WithHint(hint)
	}
	return e
}

func TestFormatGolden(t *testing.T) {
	tests := []struct {
		name string
		src  string
		err  error
	}{
		{"language-error", `1 + "a"`, spanned("type_error", "cannot add int and str", "convert one side with .str() or .parse_int()", 0, 7)},
		{"second-line", "let x = 1\nx.nope()\n", spanned("field_missing", "int has no method nope", "", 12, 16)},
		{"parse-error-hint", "ls 2>> log.txt", &syntax.Error{Msg: "no fd-numbered redirects", Hint: "use (cmd).stderr", Span: syntax.Span{Start: 3, End: 6}}},
		{"eof-after-newline", "let x = (1 +\n", &syntax.Error{Msg: "unexpected end of input", Span: syntax.Span{Start: 13, End: 13}, Incomplete: true}},
		{"span-crosses-lines", "[1,\n 2", spanned("type_error", "bad list", "", 0, 6)},
		{"tabs-and-unicode", "\tlet é = ☃ + 1", spanned("type_error", "snowman", "", 10, 13)},
		{"line-ten", "1\n2\n3\n4\n5\n6\n7\n8\n9\nboom", spanned("custom", "ten", "", 18, 22)},
		{"no-position", "x", value.Errorf("cmd_failed", "false exited with status 1")},
		{"plain-go-error", "x", errors.New("open script.shl: no such file")},
		{"span-out-of-range", "abc", spanned("custom", "far", "", 10, 20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Format("test.shl", tt.src, tt.err)
			path := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if got != string(want) {
				t.Errorf("Format mismatch\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

func TestFormatNil(t *testing.T) {
	if got := Format("x", "src", nil); got != "" {
		t.Errorf("Format(nil) = %q", got)
	}
}

func TestFormatStyledIsFormatPlusEscapes(t *testing.T) {
	st := Styles{Error: "\x1b[1;31m", Hint: "\x1b[36m", Caret: "\x1b[31m", Gutter: "\x1b[34m"}
	err := spanned("type_error", "cannot add int and str", "convert one side", 4, 7)
	src := `1 + "a"`
	got := FormatStyled("t.shl", src, err, st)
	plain := Format("t.shl", src, err)
	stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(got, "")
	if stripped != plain {
		t.Errorf("styled text differs from plain:\n%s\nvs\n%s", stripped, plain)
	}
	for _, want := range []string{"\x1b[1;31merror[type_error]:\x1b[0m cannot add", "\x1b[36mhint:\x1b[0m convert", "\x1b[31m^^^\x1b[0m", "\x1b[34m-->\x1b[0m t.shl:1:5"} {
		if !strings.Contains(got, want) {
			t.Errorf("styled diagnostic lacks %q:\n%q", want, got)
		}
	}
	if FormatStyled("t.shl", src, err, Styles{}) != plain {
		t.Errorf("zero Styles is not plain")
	}
}
