package proto

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocsMethodList: the method table of docs/kernel.md ("## Methods")
// lists exactly the methods of the method table, each with the attach
// column the table says ("no" for a method served before attach), so the
// doc cannot drift from the code.
func TestDocsMethodList(t *testing.T) {
	b, err := os.ReadFile("../docs/kernel.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sect, ok := strings.Cut(string(b), "\n## Methods\n")
	if !ok {
		t.Fatal("docs/kernel.md has no \"## Methods\" section")
	}
	span := regexp.MustCompile("`([^`]*)`")
	// A span's leading method name: `pty.open\|send\|read` (the \| read
	// as \x00) stands for pty.open, pty.send and pty.read.
	name := regexp.MustCompile("^[a-z]+(?:\\.[a-z]+)?(?:\x00[a-z]+)*")
	documented := map[string]string{} // method: its attach column
	for _, line := range strings.Split(sect, "\n") {
		if strings.HasPrefix(line, "#") {
			break
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
		if len(cells) < 4 {
			continue
		}
		attach := strings.TrimSpace(cells[2])
		for _, sp := range span.FindAllStringSubmatch(cells[1], -1) {
			if strings.HasPrefix(sp[1], "{") {
				continue // params, as in `explain {src}` or `{ast}`
			}
			n := name.FindString(sp[1])
			if n == "" {
				t.Errorf("cannot read a method name in %q", sp[1])
				continue
			}
			parts := strings.Split(n, "\x00")
			ns, _, _ := strings.Cut(parts[0], ".")
			for i, p := range parts {
				if i > 0 {
					p = ns + "." + p
				}
				documented[p] = attach
			}
		}
	}
	var names []string
	for _, m := range Methods() {
		names = append(names, m.Name)
		want := "yes"
		if m.PreAttach {
			want = "no"
		}
		got, ok := documented[m.Name]
		switch {
		case !ok:
			t.Errorf("docs/kernel.md does not list %s", m.Name)
		case got != want:
			t.Errorf("docs/kernel.md: %s attach %q, want %q", m.Name, got, want)
		}
	}
	for d := range documented {
		if !slices.Contains(names, d) {
			t.Errorf("docs/kernel.md lists %s, which is not in the method table", d)
		}
	}
}
