package docexamples

import (
	"strings"
	"testing"
)

func TestExtract(t *testing.T) {
	doc := strings.Join([]string{
		"# title",
		"```shoal",
		"ls",
		"```",
		"```toml",
		"a = 1",
		"```",
		"- item:",
		"  ```shoal no-run needs a kernel",
		"  journal",
		"    .len()",
		"  ```",
		"````shoal error",
		"rm -f x",
		"```",
		"# a comment",
		"",
		"cargo build --jobs \"many\"",
		"````",
		"```shoal",
		"never closed",
	}, "\n")
	exs, err := Extract("d.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) != 3 {
		t.Fatalf("got %d examples, want 3: %+v", len(exs), exs)
	}
	if exs[0].Src != "ls" || exs[0].Mode != Run || exs[0].Name() != "d.md:2" {
		t.Errorf("first: %+v", exs[0])
	}
	if exs[1].Src != "journal\n  .len()" || exs[1].Mode != NoRun || exs[1].Reason != "needs a kernel" {
		t.Errorf("second: %+v", exs[1])
	}
	if exs[2].Mode != Errors || len(Lines(exs[2].Src)) != 3 {
		t.Errorf("third: %+v lines %q", exs[2], Lines(exs[2].Src))
	}
}

func TestExtractRefuses(t *testing.T) {
	for _, doc := range []string{
		"```shoal no-run\nx\n```",
		"```shoal sometimes\nx\n```",
		"```shoal\n" + strings.Repeat("x", MaxExampleBytes+1) + "\n```",
	} {
		if _, err := Extract("d.md", doc); err == nil {
			t.Errorf("%.40q: no error", doc)
		}
	}
}

func TestExtractLenient(t *testing.T) {
	exs, err := ExtractLenient("d.md", "```shoal title=x\nls\n```\n```shoal no-run\npwd\n```")
	if err != nil || len(exs) != 2 || exs[0].Mode != Run || exs[1].Mode != Run {
		t.Fatalf("%+v, %v", exs, err)
	}
}
