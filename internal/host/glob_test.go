package host

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGlob(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir,
		"a.txt", "b.txt", "c.log", ".hidden.txt", "[x].txt",
		"sub/b.txt", "sub/c.md", "sub/deep/d.txt",
		".git/config.txt", "sub/.cache/e.txt", "empty/")
	if err := os.Symlink(dir, filepath.Join(dir, "sub/loop")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		pattern string
		hidden  bool
		want    []string
	}{
		{"*.txt", false, []string{"[x].txt", "a.txt", "b.txt"}},
		{"*.txt", true, []string{".hidden.txt", "[x].txt", "a.txt", "b.txt"}},
		{".*.txt", false, []string{".hidden.txt"}},
		{"?.txt", false, []string{"a.txt", "b.txt"}},
		{"[ab].txt", false, []string{"a.txt", "b.txt"}},
		{"[!a].txt", false, []string{"b.txt"}},
		{"[^a].txt", false, []string{"b.txt"}},
		{`\[x\].txt`, false, []string{"[x].txt"}},
		{"**/*.txt", false, []string{"[x].txt", "a.txt", "b.txt", "sub/b.txt", "sub/deep/d.txt"}},
		{"**/*.txt", true, []string{
			".git/config.txt", ".hidden.txt", "[x].txt", "a.txt", "b.txt",
			"sub/.cache/e.txt", "sub/b.txt", "sub/deep/d.txt"}},
		{"sub/**", false, []string{"sub/b.txt", "sub/c.md", "sub/deep", "sub/deep/d.txt", "sub/loop"}},
		{"sub/**/d.txt", false, []string{"sub/deep/d.txt"}},
		{"**/**/d.txt", false, []string{"sub/deep/d.txt"}},
		{"*/b.txt", false, []string{"sub/b.txt"}},
		{"*/", false, []string{"empty/", "sub/"}},
		{"./*.log", false, []string{"./c.log"}},
		{"sub/../*.log", false, []string{"sub/../c.log"}},
		{"sub/loop/*.log", false, []string{"sub/loop/c.log"}},
		{"a.txt", false, []string{"a.txt"}},
		{"nope.txt", false, nil},
		{"*.nonexistent", false, nil},
		{"missing/*", false, nil},
		{"a.txt/*", false, nil},
	}
	h := NewOS(AllowAll)
	for _, tc := range cases {
		got, err := h.Glob(context.Background(), dir, tc.pattern, tc.hidden)
		if err != nil {
			t.Errorf("Glob(%q, hidden=%v): %v", tc.pattern, tc.hidden, err)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Glob(%q, hidden=%v) = %q, want %q", tc.pattern, tc.hidden, got, tc.want)
		}
	}
}

func TestGlobAbsolute(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, "x.go", "y.go", "z.md")
	rec := &recorder{}
	got, err := NewOS(rec).Glob(context.Background(), "/elsewhere", dir+"/*.go", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{dir + "/x.go", dir + "/y.go"}; !slices.Equal(got, want) {
		t.Errorf("Glob = %q, want %q", got, want)
	}
	if ops := rec.effects(); len(ops) != 1 || ops[0] != "fs_read "+dir {
		t.Errorf("ops = %q, want one fs_read of %s", ops, dir)
	}
}

func TestGlobBadPattern(t *testing.T) {
	for _, p := range []string{"", "[a", "a/[b-"} {
		if _, err := NewOS(AllowAll).Glob(context.Background(), t.TempDir(), p, false); !errors.Is(err, path.ErrBadPattern) {
			t.Errorf("Glob(%q) = %v, want ErrBadPattern", p, err)
		}
	}
}

func TestGlobCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewOS(AllowAll).Glob(ctx, t.TempDir(), "**/*", false); !errors.Is(err, context.Canceled) {
		t.Errorf("Glob on cancelled ctx = %v", err)
	}
}

func TestClassBang(t *testing.T) {
	cases := map[string]string{
		"[!a]":     "[^a]",
		"x[!ab]y":  "x[^ab]y",
		`\[!a]`:    `\[!a]`,
		"[a!]":     "[a!]",
		"[!a][!b]": "[^a][^b]",
		"!a":       "!a",
	}
	for in, want := range cases {
		if got := classBang(in); got != want {
			t.Errorf("classBang(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzGlobPattern checks that any pattern is either rejected with
// ErrBadPattern or expands without error to sorted, unique paths that each
// start with the pattern's literal prefix.
func FuzzGlobPattern(f *testing.F) {
	for _, s := range []string{"*.txt", "**/*.go", "[!a]?", `\*`, "a/[b-", "./x/**", "/", "[]]", "a//b/"} {
		f.Add(s)
	}
	dir := f.TempDir()
	for _, n := range []string{"a.txt", "b/c.go", ".d/e"} {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			f.Fatal(err)
		}
	}
	h := NewOS(AllowAll)
	f.Fuzz(func(t *testing.T, pattern string) {
		if strings.HasPrefix(pattern, "/") || strings.Contains(pattern, "..") {
			return // stay inside the fixture
		}
		got, err := h.Glob(context.Background(), dir, pattern, true)
		if err != nil {
			if !errors.Is(err, path.ErrBadPattern) {
				t.Fatalf("Glob(%q): unexpected error %v", pattern, err)
			}
			return
		}
		if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Fatalf("Glob(%q) = %q: not sorted and unique", pattern, got)
		}
		p, _ := parsePattern(pattern)
		for _, m := range got {
			if !strings.HasPrefix(m, p.prefix) {
				t.Fatalf("Glob(%q) match %q lacks prefix %q", pattern, m, p.prefix)
			}
		}
	})
}
