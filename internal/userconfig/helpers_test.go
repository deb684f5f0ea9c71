package userconfig

import (
	"os"
	"regexp"
	"testing"
	"time"
)

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
