package syntax

import "testing"

// TestCmdArgPostfix: a field or method glued to a parenthesised command
// argument belongs to it (`save p (cat f).stdout`); with a space it is a
// word of its own.
func TestCmdArgPostfix(t *testing.T) {
	cases := []struct {
		src   string
		nargs int
		last  string // the last argument's node type
	}{
		{`save path("raw.bin") (cat input.bin).stdout`, 2, "*syntax.Field"},
		{`echo (xs).len()`, 1, "*syntax.MethodCall"},
		{`echo (xs).first().name`, 1, "*syntax.Field"},
		{`echo (xs) .txt`, 2, ""},
		{`echo (xs).`, 2, ""},
	}
	for _, c := range cases {
		prog, err := Parse(c.src, ParseOptions{})
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		cmd, ok := prog.Stmts[0].(*ExprStmt).X.(*Cmd)
		if !ok {
			t.Errorf("%s: not a command: %T", c.src, prog.Stmts[0].(*ExprStmt).X)
			continue
		}
		args := cmd.Call.Args
		if len(args) != c.nargs {
			t.Errorf("%s: %d arguments, want %d", c.src, len(args), c.nargs)
			continue
		}
		if c.last != "" {
			if got := typeName(args[len(args)-1].X); got != c.last {
				t.Errorf("%s: last argument is %s, want %s", c.src, got, c.last)
			}
		}
	}
}

func typeName(x any) string {
	switch x.(type) {
	case *Field:
		return "*syntax.Field"
	case *MethodCall:
		return "*syntax.MethodCall"
	}
	return "other"
}
