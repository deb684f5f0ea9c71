package syntax

import (
	"strings"
	"testing"
)

// classesOf renders src's tokens as "text:class" words, for tables.
func classesOf(src string, bound ...string) string {
	isBound := func(n string) bool {
		for _, b := range bound {
			if b == n {
				return true
			}
		}
		return false
	}
	names := [...]string{"plain", "kw", "lit", "cmd", "str", "num", "flag", "op", "method", "comment", "err", "var", "path"}
	var parts []string
	for _, tk := range Tokens(src, isBound) {
		parts = append(parts, src[tk.Start:tk.End]+":"+names[tk.Class])
	}
	return strings.Join(parts, " ")
}

func TestTokensClassify(t *testing.T) {
	for _, tc := range []struct {
		src   string
		bound []string
		want  string
	}{
		{`let x = "hi"`, nil, `let:kw x:plain =:op "hi":str`},
		{`ls -la --all ./src`, nil, `ls:cmd -la:flag --all:flag ./src:path`},
		{`cp ~/a /tmp/b c`, nil, `cp:cmd ~/a:path /tmp/b:path c:plain`},
		{`ec`, nil, `ec:cmd`},
		{`x.len()`, []string{"x"}, `x:var .:op len:method (:op ):op`},
		{`xs.sort()`, nil, `xs:plain .:op sort:method (:op ):op`},
		{`[3,1,2]` + "\n" + `  .sort()`, nil, `[:op 3:num ,:op 1:num ,:op 2:num ]:op ` + "\n" + `:op .:op sort:method (:op ):op`},
		{`echo (1 + 2) done`, nil, `echo:cmd (:op 1:num +:op 2:num ):op done:plain`},
		{`if true { ls } else { null }`, nil, `if:kw true:lit {:op ls:cmd }:op else:kw {:op null:lit }:op`},
		{`sleep 30s # wait`, nil, `sleep:cmd 30s:plain # wait:comment`},
		{`1.5 + 2kb`, nil, `1.5:num +:op 2kb:num`},
		{`"unterminated`, nil, `"unterminated:str`},
		{`^git status`, nil, `^:cmd git:cmd status:plain`},
		{`ls; let y = 1`, nil, `ls:cmd ;:op let:kw y:plain =:op 1:num`},
		{"$x", nil, "$x:err"},
	} {
		if got := classesOf(tc.src, tc.bound...); got != tc.want {
			t.Errorf("Tokens(%q)\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

func TestTokensLongSourceIsPlain(t *testing.T) {
	src := strings.Repeat("a", MaxTokenSource+1)
	toks := Tokens(src, nil)
	if len(toks) != 1 || toks[0] != (Token{ClassPlain, 0, len(src)}) {
		t.Fatalf("Tokens of a long source: %v", toks)
	}
}

func TestTokensDeepNestingBounded(t *testing.T) {
	src := strings.Repeat("(", 10*maxTokenNesting) + "1" + strings.Repeat(")", 10*maxTokenNesting) + " ls"
	toks := Tokens(src, nil)
	checkTokens(t, src, toks)
}

// checkTokens asserts what Tokens promises: in order, not overlapping,
// within src, and only spaces (or trivia) between them.
func checkTokens(t *testing.T, src string, toks []Token) {
	t.Helper()
	at := 0
	for _, tk := range toks {
		if tk.Start < at || tk.End <= tk.Start || tk.End > len(src) || int(tk.Class) >= NumClasses {
			t.Fatalf("bad token %+v after offset %d in %q", tk, at, src)
		}
		at = tk.End
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{`let x = "hi"`, "ls -la\n  .x", `^git {`, `"a{b}c"`, `#c`, "[1,\n2", `t"10:00"`, `re"a+"`, "\\\n", "a |> b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkTokens(t, src, Tokens(src, func(n string) bool { return len(n)%2 == 0 }))
	})
}
