package syntax

import (
	"fmt"
	"strings"
	"testing"
)

// describeComments lists each comment as "place text @ node-start".
func describeComments(src string, prog *Program) []string {
	var out []string
	for _, c := range prog.Comments {
		at := "-"
		if c.Node != nil {
			sp := c.Node.Pos()
			at = fmt.Sprintf("%s %q", strings.Replace(fmt.Sprintf("%T", c.Node), "*syntax.", "", 1), src[sp.Start:sp.End])
		}
		out = append(out, c.Place.String()+" "+c.Text+" @ "+at)
	}
	return out
}

func TestCommentsAttached(t *testing.T) {
	cases := []struct {
		src  string
		want []string
	}{
		{"# head\nlet x = 1 # tail\n# end\n", []string{
			`leading # head @ LetStmt "let x = 1"`,
			`trailing # tail @ LetStmt "let x = 1"`,
			`dangling # end @ -`,
		}},
		{"if true {\n  # inside\n  echo a\n  # last\n}\n", []string{
			`leading # inside @ ExprStmt "echo a"`,
			`dangling # last @ Block "{\n  # inside\n  echo a\n  # last\n}"`,
		}},
		{"echo a#b '#no' \"#{1}no\"\nlet s = sh { echo # raw }\n", nil},
		{"ls ./x#y -m#q\n", nil},
		{"let f = (x) => x # id\nf(1)# call\n", []string{
			`trailing # id @ LetStmt "let f = (x) => x"`,
			`trailing # call @ ExprStmt "f(1)"`,
		}},
		{"let r = [\n  1, # one\n  2\n]\n", []string{
			`trailing # one @ IntLit "1"`,
		}},
		{"let x = 1\r\n# crlf\r\n", []string{`dangling # crlf @ -`}},
		{"fn f() {\n  # only\n}\nlet l = [ # open\n]\n", []string{
			`dangling # only @ Block "{\n  # only\n}"`,
			`dangling # open @ List "[ # open\n]"`,
		}},
	}
	for _, c := range cases {
		prog, err := Parse(c.src, ParseOptions{Comments: true})
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		got := describeComments(c.src, prog)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%q:\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}

// TestCommentsOffByDefault: without the option the tree carries none.
func TestCommentsOffByDefault(t *testing.T) {
	prog, err := Parse("# c\nlet x = 1 # d\n", ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if prog.Comments != nil {
		t.Fatalf("comments kept without the option: %v", prog.Comments)
	}
}
