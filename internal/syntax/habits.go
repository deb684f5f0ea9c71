package syntax

// Shell habits: a line written the POSIX-shell way (export FOO=bar,
// for f in *.txt; do ...; done, [ -f x ], $(cmd), 2>/dev/null, a | b)
// fails to parse; its error then names the habit and its hint gives the
// Shoal spelling, built from the line's own words where that is safe.

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// maxHabitLine bounds how much of the failing line the habit patterns
// read.
const maxHabitLine = 4096

// habitPatterns are the shell habits' patterns, compiled the first time a
// parse error is taught (not at every start of every binary that parses).
var habitPatterns = sync.OnceValue(func() *habitRE {
	return &habitRE{
		export: regexp.MustCompile(`^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(.*)$`),
		forIn:  regexp.MustCompile(`^\s*for\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\s+([^{}()]*?)\s*(;\s*do\b|\s+do\s*$|$)`),
		while:  regexp.MustCompile(`^\s*(?:while|until)\s+(.*?)\s*;\s*do\b`),
		test:   regexp.MustCompile(`(?:^|[\s;])(?:\[\[?|test)\s+(!\s+)?-([a-zA-Z])\s+("[^"]*"|'[^']*'|[^\s\]]+)`),
		cmpTst: regexp.MustCompile(`(?:^|[\s;])\[\[?\s+\S+\s+(?:=|==|!=|-eq|-ne|-lt|-gt|-le|-ge)\s+\S+\s+\]\]?`),
		ifThen: regexp.MustCompile(`^\s*if\s+.*;\s*then\b`),
		alias:  regexp.MustCompile(`^\s*alias\s+([A-Za-z_][A-Za-z0-9_-]*)=(?:'([^']*)'|"([^"$]*)")\s*$`),
	}
})

type habitRE struct {
	export, forIn, while, test, cmpTst, ifThen, alias *regexp.Regexp
}

// teachHabit rewrites e when the line it is on is a shell habit.
func teachHabit(src string, e *Error) {
	start := int(e.Span.Start)
	if start < 0 || start > len(src) {
		return
	}
	ls := strings.LastIndexByte(src[:start], '\n') + 1
	le := strings.IndexByte(src[start:], '\n')
	if le < 0 {
		le = len(src)
	} else {
		le += start
	}
	line := src[ls:le]
	if len(line) > maxHabitLine {
		return
	}
	col := start - ls
	msg, hint := habitOf(line, col, e.Msg)
	if hint == "" {
		return
	}
	if msg != "" {
		e.Msg = msg
	}
	e.Hint = hint
	e.Incomplete = false
}

// habitOf names the habit of line (the error at byte col, with message
// msg) and the Shoal spelling; "" when it is none.
func habitOf(line string, col int, msg string) (string, string) {
	re := habitPatterns()
	if m := re.export.FindStringSubmatch(line); m != nil {
		return "`export` is POSIX shell: the environment is the env namespace",
			"write env." + m[1] + " = " + shellValue(m[2])
	}
	if m := re.alias.FindStringSubmatch(line); m != nil {
		return "`alias NAME='...'` is POSIX shell: an alias is words, not a string",
			"write alias " + m[1] + " = " + strings.TrimSpace(m[2]+m[3])
	}
	if m := re.forIn.FindStringSubmatch(line); m != nil && (m[3] != "" || !strings.Contains(line, "{") && strings.ContainsAny(m[2], "*?[")) {
		return "`for ... do ... done` is POSIX shell: a loop's body is a block",
			"write for " + m[1] + " in " + shellList(m[2]) + " { ... }"
	}
	if m := re.while.FindStringSubmatch(line); m != nil {
		return "`while ...; do ... done` is POSIX shell: a loop's body is a block",
			"write while (CONDITION) { ... }, as in while (!path(\"ready\").exists()) { sleep 1s }"
	}
	if m := re.test.FindStringSubmatch(line); m != nil {
		what := "ask the path"
		if m[2] == "z" || m[2] == "n" {
			what = "compare the string"
		}
		return "`[ -" + m[2] + " ... ]` is the POSIX test command: " + what,
			"write " + testSpelling(m[1] != "", m[2], m[3])
	}
	if re.cmpTst.MatchString(line) {
		return "`[ a = b ]` is the POSIX test command: compare values",
			"write a == b (or !=, <, >), as in if (env.MODE == \"test\") { ... }"
	}
	if re.ifThen.MatchString(line) {
		return "`if ...; then ... fi` is POSIX shell: the branches are blocks",
			"write if (CONDITION) { ... } else { ... }"
	}
	rest := ""
	if col >= 0 && col <= len(line) {
		rest = line[col:]
	}
	switch {
	case strings.HasPrefix(rest, "$(("):
		inner := rest[3:]
		if i := strings.Index(inner, "))"); i >= 0 {
			inner = inner[:i]
		}
		return "`$((...))` is POSIX arithmetic: arithmetic is an expression",
			"write (" + strings.TrimSpace(inner) + "), as in echo (2 + 3) or let n = count * 2"
	case strings.HasPrefix(rest, "$("):
		inner := rest[2:]
		if i := strings.IndexByte(inner, ')'); i >= 0 {
			inner = inner[:i]
		}
		inner = strings.TrimSpace(inner)
		spelled := "(" + inner + ")"
		if l, r, ok := strings.Cut(inner, "|"); ok && !strings.Contains(r, "|") && strings.TrimSpace(l) != "" && strings.TrimSpace(r) != "" {
			spelled = "(" + strings.TrimSpace(l) + ").feed(^" + strings.TrimSpace(r) + ")"
		}
		return "`$(...)` is POSIX shell: a command in parentheses is its value",
			"write " + spelled + ", as in echo (pwd) or let files = (ls)"
	case len(rest) > 1 && rest[0] == '$' && rest[1] >= '0' && rest[1] <= '9':
		if rest[1] == '0' {
			return "`$0` is POSIX shell: a script's path is script", "write script"
		}
		return "`$" + rest[1:2] + "` is POSIX shell: a script's arguments are the list args",
			"write args[" + strconv.Itoa(int(rest[1]-'1')) + "] (args.len() counts them)"
	case strings.HasPrefix(rest, "${"):
		name := rest[2:]
		if i := strings.IndexByte(name, '}'); i >= 0 {
			name = name[:i]
		}
		return "", "variables have no sigil: write " + name + ", or env." + name + " for an environment variable; in a string, \"{" + name + "}\""
	case strings.HasPrefix(rest, "$?"):
		return "`$?` is POSIX shell: a command's status is in its outcome",
			"write let r = (CMD) and read r.status (or r.ok)"
	case (strings.Contains(msg, "fd-numbered") || strings.Contains(msg, "stream-merging")) &&
		(strings.Contains(rest, "/dev/null") || strings.HasPrefix(rest, "2>&1")):
		cmd := strings.TrimSpace(line[:min(max(col, 0), len(line))])
		if cmd == "" {
			cmd = "CMD"
		}
		return "", "stderr never mixes into a value: let r = (" + cmd + ") keeps it in r.stderr; to ignore a failure, try { " + cmd + " } catch err { }"
	case strings.Contains(msg, "no pipe operator"):
		left := strings.TrimSpace(line[:min(max(col, 0), len(line))])
		right := ""
		if col+1 <= len(line) {
			right = strings.TrimSpace(line[col+1:])
		}
		if left == "" || right == "" || strings.Contains(right, "|") || strings.ContainsAny(left[:1], "([{") || strings.ContainsAny(right[len(right)-1:], ")]}") {
			return "", "there is no | between commands: chain methods on the value, or give bytes to a program with (CMD).feed(^PROGRAM)"
		}
		if m, ok := tableVerb(right); ok {
			return "", "there is no | between commands: a table's rows are filtered and shaped by its methods; write (" + left + ")" + m
		}
		return "", "there is no | between commands: write (" + left + ").feed(^" + right + "), or chain methods on the value (" + left + ").len()"
	}
	return "", ""
}

// tableVerb spells a structured shell's table command (Nushell's `where
// size > 1kb`, `sort-by name`, `first 5`, …) after a pipe as the method
// chain Shoal writes for it; ok is false for anything else, which the
// caller treats as a program to feed. Only words that name no common
// program are taken: `sort`, `head` and `uniq` stay programs.
func tableVerb(right string) (string, bool) {
	fs := strings.Fields(right)
	if len(fs) == 0 {
		return "", false
	}
	verb, args := fs[0], fs[1:]
	field := func(w string) string {
		if w == "" || !isIdentStartByte(w[0]) {
			return w
		}
		return "." + w
	}
	switch verb {
	case "where", "filter":
		if len(args) == 0 {
			return "", false
		}
		args[0] = field(args[0])
		return ".where(" + strings.Join(args, " ") + ")", true
	case "sort-by", "sort_by":
		if len(args) == 0 {
			return "", false
		}
		m := ".sort_by(" + field(args[0]) + ")"
		for _, a := range args[1:] {
			if a == "-r" || a == "--reverse" {
				m += ".reverse()"
			}
		}
		return m, true
	case "first", "last":
		if len(args) == 0 {
			return "." + verb + "()", true
		}
		if _, err := strconv.Atoi(args[0]); err == nil {
			return "." + verb + "(" + args[0] + ")", true
		}
	case "select":
		if len(args) == 0 {
			return "", false
		}
		q := make([]string, len(args))
		for i, a := range args {
			q[i] = strconv.Quote(a)
		}
		return ".select(" + strings.Join(q, ", ") + ")", true
	case "get", "each":
		if len(args) == 1 && isIdentStartByte(args[0][0]) {
			return ".map(" + field(args[0]) + ")", true
		}
	case "length":
		if len(args) == 0 {
			return ".len()", true
		}
	case "reverse":
		if len(args) == 0 {
			return ".reverse()", true
		}
	}
	return "", false
}

// shellValue spells a shell assignment's value as a Shoal string.
func shellValue(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		v = v[1 : len(v)-1]
	}
	if strings.ContainsAny(v, "${}\\") {
		return `"VALUE"`
	}
	return strconv.Quote(v)
}

// shellList spells a for loop's word list: a glob, or a list of strings.
func shellList(words string) string {
	fs := strings.Fields(words)
	if len(fs) == 1 && strings.ContainsAny(fs[0], "*?[") {
		return "glob(" + strconv.Quote(strings.Trim(fs[0], `"'`)) + ")"
	}
	if len(fs) == 0 || strings.ContainsAny(words, "$`") {
		return "(ls).map(.name)"
	}
	q := make([]string, len(fs))
	for i, f := range fs {
		q[i] = strconv.Quote(strings.Trim(f, `"'`))
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// testSpelling is the Shoal for `[ -OP PATH ]`.
func testSpelling(not bool, op, arg string) string {
	arg = strings.Trim(arg, `"'`)
	neg := ""
	if not {
		neg = "!"
	}
	if strings.ContainsAny(arg, "$`") {
		arg = "PATH"
	}
	p := "path(" + strconv.Quote(arg) + ")"
	switch op {
	case "f":
		return neg + p + ".is_file()"
	case "d":
		return neg + p + ".is_dir()"
	case "z":
		return "STR == \"\""
	case "n":
		return "STR != \"\""
	}
	return neg + p + ".exists()"
}
