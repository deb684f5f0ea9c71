package format

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden formats each testdata/*.shl and compares with its .golden.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.shl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Source(src)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(in, ".shl") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			assertStable(t, src, got)
		})
	}
}

// assertStable checks what every result must satisfy: idempotent, the
// same tree, the same comments in order.
func assertStable(t *testing.T, src, got []byte) {
	t.Helper()
	again, err := Source(got)
	if err != nil {
		t.Fatalf("formatting the output: %v", err)
	}
	if string(again) != string(got) {
		t.Fatalf("not idempotent:\nonce:\n%s\ntwice:\n%s", got, again)
	}
	a, err := syntax.Parse(string(src), parseOptions)
	if err != nil {
		t.Fatal(err)
	}
	b, err := syntax.Parse(string(got), parseOptions)
	if err != nil {
		t.Fatalf("output does not parse: %v", err)
	}
	if !SameTree(a, b) {
		t.Fatal("output has another tree")
	}
	if len(a.Comments) != len(b.Comments) {
		t.Fatalf("%d comments became %d", len(a.Comments), len(b.Comments))
	}
	for i := range a.Comments {
		if commentText(a.Comments[i]) != commentText(b.Comments[i]) {
			t.Fatalf("comment %d: %q became %q", i, a.Comments[i].Text, b.Comments[i].Text)
		}
	}
}

func TestTable(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"blank only", "\n\n  \n", ""},
		{"final newline added", "let x = 1", "let x = 1\n"},
		{"crlf", "let x = 1\r\nlet y = 2\r\n", "let x = 1\nlet y = 2\n"},
		{"tabs", "if true {\n\techo a\n}\n", "if true {\n  echo a\n}\n"},
		{"blank runs", "let a = 1\n\n\n\nlet b = 2\n", "let a = 1\n\nlet b = 2\n"},
		{"blank inside brackets", "let l = [\n\n  1\n\n]\n", "let l = [\n  1\n]\n"},
		{"else chain", "if a {\n1\n} else if b {\n2\n} else {\n3\n}\n", "if a {\n  1\n} else if b {\n  2\n} else {\n  3\n}\n"},
		{"closers", "let r = f([\n{\na: 1\n}\n])\n", "let r = f([\n  {\n    a: 1\n  }\n])\n"},
		{"continuation", "let x = 1 +\n2\n", "let x = 1 +\n  2\n"},
		{"backslash", "echo a \\\nb\n", "echo a \\\n  b\n"},
		{"trailing comment spacing", "let x = 1\t\t# c  \n", "let x = 1 # c\n"},
		{"interpreter body kept", "sh {\n    echo   x  \n  }\n", "sh {\n    echo   x  \n  }\n"},
		{"string kept", "let s = \"\"\"\n  a  \n\"\"\"\n", "let s = \"\"\"\n  a  \n\"\"\"\n"},
		{"brackets in strings", "let s = '{ ( ['\nlet t = 1\n", "let s = '{ ( ['\nlet t = 1\n"},
		{"comment with brackets", "if true { # {\n  1\n}\n", "if true { # {\n  1\n}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Source([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("got %q\nwant %q", got, c.want)
			}
			assertStable(t, []byte(c.in), got)
		})
	}
}

func TestParseErrorIsTyped(t *testing.T) {
	_, err := Source([]byte("let x = (1 +\n"))
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("got %T %v, want a *ParseError", err, err)
	}
	if pe.Err.Msg == "" {
		t.Fatal("no diagnostic")
	}
}

func TestTooLarge(t *testing.T) {
	_, err := Source(make([]byte, MaxSource+1))
	var te *TooLargeError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want a *TooLargeError", err)
	}
}

// TestCheckRefuses: the safety net rejects an output with another tree
// or a lost comment.
func TestCheckRefuses(t *testing.T) {
	prog, err := syntax.Parse("let x = 1 # c\n", parseOptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"let x = 2 # c\n", "let x = 1\n", "let x = 1 # d\n", "let x = (\n"} {
		var ue *UnsafeError
		if err := check(prog, out); !errors.As(err, &ue) {
			t.Errorf("%q: got %v, want an *UnsafeError", out, err)
		}
	}
	if err := check(prog, "let   x = 1    # c\n"); err != nil {
		t.Errorf("spacing alone refused: %v", err)
	}
}
