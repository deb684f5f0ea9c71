package complete

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func commandsCtx() Context {
	c := testCtx()
	c.PathCommands = func() []string { return []string{"gcc", "git", "gitk", "lsblk", "cargo"} }
	c.Flags = func(head string) []string {
		if head == "ls" {
			return []string{"--all", "--long", "-a", "-l"}
		}
		return nil
	}
	return c
}

func TestCompletePathCommandsAndFlags(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string // labels, space separated
		kind string
	}{
		{"gi|", "git gitk", KindCommand},
		{"x; gi|", "git gitk", KindCommand},
		{"let y = gi|", "git gitk", KindCommand}, // a command may follow `=`
		{"1 + gi|", "", ""},                      // an operand: no programs
		{"ls --a|", "--all", KindFlag},           // a builtin's declared flags
		{"ls -|", "--all --long -a -l", ""},      // every flag
		{"^ls --l|", "--long", KindFlag},
		{"cargo --x|", "", ""}, // an external program's flags are unknown
	} {
		src, cur := at(tc.src)
		got := Complete(src, cur, commandsCtx())
		if l := labels(got, len(strings.Fields(tc.want))); l != tc.want || (tc.want == "" && len(got) > 0) {
			t.Errorf("%q: %q, want %q", tc.src, l, tc.want)
			continue
		}
		if tc.kind != "" && got[0].Kind != tc.kind {
			t.Errorf("%q: kind %q, want %q", tc.src, got[0].Kind, tc.kind)
		}
	}
	// The session's names come before PATH's.
	if got := Complete("ls", 2, commandsCtx()); labels(got, 3) != "ls lsblk lsx" || got[1].Kind != KindCommand {
		t.Errorf("ls: %q", labels(got, 3))
	}
	// A flag's span covers the typed flag, so an editor replaces it.
	src, cur := at("ls --a| x")
	got := Complete(src, cur, commandsCtx())
	if len(got) != 1 || got[0].Replace.Start != 3 || got[0].Replace.End != 6 {
		t.Fatalf("flag span: %+v", got)
	}
}

func TestPathCommandNames(t *testing.T) {
	fsys := fstest.MapFS{
		"bin/git":        {Mode: 0o755},
		"bin/readme":     {Mode: 0o644},
		"bin/.hidden":    {Mode: 0o755},
		"bin/sub":        {Mode: fs.ModeDir | 0o755},
		"usr/bin/git":    {Mode: 0o755},
		"usr/bin/cargo":  {Mode: 0o755},
		"usr/bin/linked": {Mode: fs.ModeSymlink | 0o777},
	}
	readDir := func(d string) ([]fs.DirEntry, error) { return fs.ReadDir(fsys, strings.TrimPrefix(d, "/")) }
	got := PathCommandNames("/bin::relative:/missing:/usr/bin", readDir)
	if want := []string{"cargo", "git", "linked"}; !slices.Equal(got, want) {
		t.Fatalf("PathCommandNames = %q, want %q", got, want)
	}
	if PathCommandNames("/bin", nil) != nil {
		t.Fatal("no reader listed something")
	}
	many := fstest.MapFS{}
	for i := 0; i < MaxPathCommands+10; i++ {
		many["b/"+strings.Repeat("x", 1+i%7)+string(rune('a'+i%26))+strings.Repeat("y", i/182)] = &fstest.MapFile{Mode: 0o755}
	}
	n := PathCommandNames("/b", func(d string) ([]fs.DirEntry, error) { return fs.ReadDir(many, "b") })
	if len(n) > MaxPathCommands {
		t.Fatalf("listed %d names, over MaxPathCommands", len(n))
	}
}
