package highlight

import (
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/syntax"
)

func TestRenderColoursTokens(t *testing.T) {
	got := Render(`let x = "hi"`, nil, &Default)
	want := "\x1b[35mlet\x1b[0m x = \x1b[32m\"hi\"\x1b[0m"
	if got != want {
		t.Fatalf("Render = %q, want %q", got, want)
	}
	if got := Render("ls -la", nil, &Default); got != "\x1b[1;34mls\x1b[0m \x1b[36m-la\x1b[0m" {
		t.Fatalf("Render(ls -la) = %q", got)
	}
	// A bound name at the head is a value, not a command.
	if got := Render("ls", func(n string) bool { return n == "ls" }, &Default); got != "ls" {
		t.Fatalf("Render of a bound name = %q", got)
	}
}

func TestEmptyThemeIsPlain(t *testing.T) {
	var th Theme
	src := "let x = [1, 2].sort() # c"
	if got := Render(src, nil, &th); got != src {
		t.Fatalf("Render with no colours = %q", got)
	}
}

func TestThemeSet(t *testing.T) {
	th := Default
	if !th.Set("keyword", "1;31") || th[1] != "1;31" {
		t.Fatalf("Set keyword: %v", th)
	}
	if !th.Set("path", "\x1b[4;36m") || th[syntax.ClassPath] != "4;36" {
		t.Fatalf("Set with a whole SGR sequence: %q", th[syntax.ClassPath])
	}
	if !th.Set("variable", "") || th[syntax.ClassVariable] != "" {
		t.Fatal("Set to no colour")
	}
	for _, bad := range [][2]string{{"nope", "31"}, {"string", "31m\x1b[2J"}, {"string", "red"}, {"string", "\x1b[31"}, {"string", "\x1b]0;x\x07"}} {
		if th.Set(bad[0], bad[1]) {
			t.Errorf("Set(%q, %q) accepted", bad[0], bad[1])
		}
	}
	// A bad entry placed directly is never written.
	th[1] = "0m\x1b]0;pwned\x07"
	if got := Render("let", nil, &th); strings.Contains(got, "\x1b]") {
		t.Fatalf("an invalid SGR reached the output: %q", got)
	}
}

func FuzzRender(f *testing.F) {
	for _, s := range []string{`let x = "hi"`, "ls -la\n  .x", "^git {", "\x1b[31m", "#c\n1", `"{1}"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.Contains(src, "\x1b") {
			return // Strip cannot tell a typed escape from Render's
		}
		if got := Strip(Render(src, nil, &Default)); got != src {
			t.Fatalf("Strip(Render(%q)) = %q", src, got)
		}
	})
}

// TestRenderKnownColoursUnknownHeads: a command head the session does not
// know is coloured as an error; builtins, programs, `^` bypasses of known
// programs and heads spelled as paths keep their colours.
func TestRenderKnownColoursUnknownHeads(t *testing.T) {
	known := func(n string) bool { return n == "git" || n == "ls" }
	red := "\x1b[" + Default[syntax.ClassError] + "m"
	for _, c := range []struct {
		src   string
		wantE bool
	}{
		{"frobnicate x", true},
		{"gti status", true},
		{"git status", false},
		{"^git log", false},
		{"^nosuch", true},
		{"./run.sh", false},
		{"ls -a", false},
	} {
		got := RenderKnown(c.src, nil, &Default, known)
		if Strip(got) != c.src {
			t.Errorf("%q: stripped %q", c.src, Strip(got))
		}
		if has := strings.Contains(got, red); has != c.wantE {
			t.Errorf("%q: rendered %q, error colour %v, want %v", c.src, got, has, c.wantE)
		}
	}
}
