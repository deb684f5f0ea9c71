package syntax

import (
	"strings"
	"testing"
)

// TestShellHabits: a line written the POSIX-shell way fails to parse with
// a hint that spells it in Shoal, and the spelling itself parses.
func TestShellHabits(t *testing.T) {
	cases := []struct {
		src, msg, hint, spelling string
	}{
		{`export FOO=bar`, "`export` is POSIX shell", `env.FOO = "bar"`, `env.FOO = "bar"`},
		{`export PATH="/opt/bin"`, "`export` is POSIX shell", `env.PATH = "/opt/bin"`, `env.PATH = "/opt/bin"`},
		{`for f in *.txt; do echo $f; done`, "`for ... do ... done`", `for f in glob("*.txt") { ... }`, `for f in glob("*.txt") { echo (f) }`},
		{`for x in a b c; do echo $x; done`, "`for ... do ... done`", `for x in ["a", "b", "c"] { ... }`, `for x in ["a", "b", "c"] { echo (x) }`},
		{`while true; do sleep 1; done`, "`while ...; do ... done`", `while (CONDITION) { ... }`, `while (!path("ready").exists()) { sleep 1s }`},
		{`[ -f notes.txt ]`, "POSIX test command", `path("notes.txt").is_file()`, `path("notes.txt").is_file()`},
		{`[ -d src ] && echo yes`, "POSIX test command", `path("src").is_dir()`, `path("src").is_dir()`},
		{`if [ -e x ]; then echo y; fi`, "POSIX test command", `path("x").exists()`, `path("x").exists()`},
		{`[ "$a" = "$b" ]`, "compare values", `a == b`, ``},
		{`echo $(pwd)`, "`$(...)` is POSIX shell", `write (pwd)`, `echo (pwd)`},
		{`let n = $(ls | wc -l)`, "`$(...)` is POSIX shell", `write (ls).feed(^wc -l)`, `let n = (ls).feed(^wc -l)`},
		{`echo $((1 + 2))`, "POSIX arithmetic", `write (1 + 2)`, `echo (1 + 2)`},
		{`echo $1`, "a script's arguments", `args[0]`, `echo (args[0])`},
		{`echo $0`, "a script's path", `script`, ``},
		{`alias ll='ls -la'`, "`alias NAME='...'`", `alias ll = ls -la`, `alias ll = ls -la`},
		{`echo $HOME`, "no sigil", "env.HOME", `echo (env.HOME)`},
		{`echo ${HOME}`, "no sigil", "env.HOME", ``},
		{`echo $?`, "`$?` is POSIX shell", "r.status", ``},
		{`ls missing 2>/dev/null`, "fd-numbered", `try { ls missing } catch err { }`, `try { ls missing } catch err { }`},
		{`make 2>&1`, "fd-numbered", `let r = (make)`, ``},
		{`cat notes.txt | wc -l`, "no pipe operator", `(cat notes.txt).feed(^wc -l)`, `(cat notes.txt).feed(^wc -l)`},
		{`ls | grep txt`, "no pipe operator", `(ls).feed(^grep txt)`, ``},
		{`ls | where size > 1kb`, "no pipe operator", `(ls).where(.size > 1kb)`, `(ls).where(.size > 1kb)`},
		{`ls | filter type == "file"`, "no pipe operator", `(ls).where(.type == "file")`, `(ls).where(.type == "file")`},
		{`ls | sort-by size -r`, "no pipe operator", `(ls).sort_by(.size).reverse()`, `(ls).sort_by(.size).reverse()`},
		{`ls | first 3`, "no pipe operator", `(ls).first(3)`, `(ls).first(3)`},
		{`ls | select name size`, "no pipe operator", `(ls).select("name", "size")`, `(ls).select("name", "size")`},
		{`ls | get name`, "no pipe operator", `(ls).map(.name)`, `(ls).map(.name)`},
		{`ls | length`, "no pipe operator", `(ls).len()`, `(ls).len()`},
		{`ls | sort`, "no pipe operator", `(ls).feed(^sort)`, ``},
	}
	for _, c := range cases {
		_, err := Parse(c.src, ParseOptions{})
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%s: parsed (%v), want a habit error", c.src, err)
			continue
		}
		if !strings.Contains(e.Msg, c.msg) || !strings.Contains(e.Hint, c.hint) {
			t.Errorf("%s:\n  msg  %q (want %q)\n  hint %q (want %q)", c.src, e.Msg, c.msg, e.Hint, c.hint)
		}
		if e.Incomplete {
			t.Errorf("%s: a habit error is not incomplete (the REPL would wait for more lines)", c.src)
		}
		if c.spelling != "" {
			if _, err := Parse(c.spelling, ParseOptions{}); err != nil {
				t.Errorf("%s: the Shoal spelling %q does not parse: %v", c.src, c.spelling, err)
			}
		}
	}
}

// TestHabitsLeaveShoalAlone: Shoal that merely looks like a habit keeps
// its own errors.
func TestHabitsLeaveShoalAlone(t *testing.T) {
	for _, src := range []string{`export x`, `let x = [1 2]`, `(1 | 2)`, `ls 2> f`} {
		_, err := Parse(src, ParseOptions{})
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if strings.Contains(e.Msg, "POSIX") {
			t.Errorf("%s: taken for a shell habit: %s", src, e.Msg)
		}
	}
}

// TestHabitsKeepIncomplete: a Shoal loop or block still open at the end
// of the line stays incomplete (the REPL waits for its next line).
func TestHabitsKeepIncomplete(t *testing.T) {
	for _, src := range []string{"for f in glob(\"*.txt\") {", "for doc in docs {", "while (x < 3) {", "if (a) {", "for x in [1, 2] {"} {
		_, err := Parse(src, ParseOptions{})
		e, ok := err.(*Error)
		if !ok || !e.Incomplete || strings.Contains(e.Msg, "POSIX") {
			t.Errorf("%q: %v, want an incomplete Shoal error", src, err)
		}
	}
}
