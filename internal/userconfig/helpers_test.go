package userconfig

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestHistoryKeep(t *testing.T) {
	h := Default().History
	h.Ignore = []string{"token *", "secret*", "?s"}
	cases := []struct {
		entry, prev string
		want        bool
	}{
		{"pwd", "", true},
		{"ls", "ls", false},     // dedup
		{" rm -r x", "", false}, // ignore_space
		{"   ", "", false},      // blank
		{"token create agent", "", false},
		{"tokens", "", true}, // "token *" needs the space
		{"secret", "", false},
		{"ls", "cd", false}, // "?s"
		{"lss", "cd", true},
		{"fn f() {\n  1\n}", "", true},
	}
	for _, c := range cases {
		if got := h.Keep(c.entry, c.prev); got != c.want {
			t.Errorf("Keep(%q, %q) = %v, want %v", c.entry, c.prev, got, c.want)
		}
	}
	h.Enabled = false
	if h.Keep("ls", "") {
		t.Errorf("a disabled history kept an entry")
	}
}

func TestWildcardIsBounded(t *testing.T) {
	p := strings.Repeat("*a", 200) + "b"
	s := strings.Repeat("a", 5000)
	if wildcard(p, s) { // a backtracking matcher would not finish
		t.Fatal("matched")
	}
	for _, c := range []struct {
		p, s string
		want bool
	}{{"*", "", true}, {"", "", true}, {"", "x", false}, {"a*c", "abbbc", true}, {"a*c", "abbb", false}, {"é?", "éx", true}} {
		if got := wildcard(c.p, c.s); got != c.want {
			t.Errorf("wildcard(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

func TestRenderTimeUnitAndStyles(t *testing.T) {
	c := Default()
	if c.Render.TimeUnit() != time.Second {
		t.Errorf("default time unit %v", c.Render.TimeUnit())
	}
	c.Render.TimePrecision = PrecisionMilli
	if c.Render.TimeUnit() != time.Millisecond {
		t.Errorf("millisecond unit %v", c.Render.TimeUnit())
	}
	if got := c.Style("string").SGR(); got != "\x1b[32m" {
		t.Errorf("string style %q", got)
	}
	if !c.Style("nosuch").IsZero() {
		t.Errorf("unknown class styled")
	}
	c.Render.Color = false
	if !c.Style("string").IsZero() {
		t.Errorf("styled with colour off")
	}
}

// TestDocumentedExamplesParse: the TOML examples in docs/shoal.md are
// accepted without warnings, so the documentation stays true.
func TestDocumentedExamplesParse(t *testing.T) {
	doc, err := os.ReadFile("../../docs/shoal.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```toml\n(.*?)```").FindAllSubmatch(doc, -1)
	if len(blocks) < 2 {
		t.Fatalf("found %d toml blocks in docs/shoal.md", len(blocks))
	}
	_, ws, err := Parse("docs/shoal.md main", blocks[0][1])
	if err != nil || len(ws) != 0 {
		t.Errorf("the documented shoal.toml: %v, warnings %v", err, ws)
	}
	_, ws, err = ParsePrompt("docs/shoal.md prompt", blocks[1][1])
	if err != nil || len(ws) != 0 {
		t.Errorf("the documented prompt.toml: %v, warnings %v", err, ws)
	}
}
