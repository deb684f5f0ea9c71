package complete

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/shoalgo/shoal/internal/value"
)

var testFS = fstest.MapFS{
	"work/proj/src/main.go":     {},
	"work/proj/src/util.go":     {},
	"work/proj/README.md":       {},
	"work/proj/.hidden":         {},
	"work/proj/my file.txt":     {},
	"work/proj/docs/guide.md":   {},
	"home/u/notes.txt":          {},
	"home/u/projects/x/y.txt":   {},
	"etc/hosts":                 {},
	"etc/hostname":              {},
	"work/proj/src/sub/deep.go": {},
}

func testCtx() Context {
	kinds := map[string]value.Kind{"name": value.KStr, "rec": value.KRecord, "p": value.KPath, "xs": value.KList}
	return Context{
		Names:    func() []string { return []string{"name", "rec", "p", "xs", "lsx"} },
		Builtins: func() []string { return []string{"cat", "cd", "cp", "ls", "mkdir", "rm", "save"} },
		Commands: func() []string { return []string{"deploy", "ll"} },
		KindOf: func(n string) (value.Kind, bool) {
			k, ok := kinds[n]
			return k, ok
		},
		Fields:   func(n string) []string { return map[string][]string{"rec": {"size", "owner"}}[n] },
		EnvNames: func() []string { return []string{"HOME", "PATH", "PWD"} },
		Subcommands: func(h string) []string {
			return map[string][]string{"git": {"add", "stash", "stash_list", "status"}}[h]
		},
		Dir:  "/work/proj",
		Home: "/home/u",
		ReadDir: func(dir string) ([]fs.DirEntry, error) {
			p := strings.TrimPrefix(dir, "/")
			if p == "" {
				p = "."
			}
			return fs.ReadDir(testFS, p)
		},
	}
}

// at splits a test source at its `|` cursor marker.
func at(s string) (string, int) {
	i := strings.IndexByte(s, '|')
	return s[:i] + s[i+1:], i
}

func labels(cs []Candidate, n int) string {
	var out []string
	for i, c := range cs {
		if i == n {
			break
		}
		out = append(out, c.Label)
	}
	return strings.Join(out, " ")
}

func find(cs []Candidate, label string) (Candidate, bool) {
	for _, c := range cs {
		if c.Label == label {
			return c, true
		}
	}
	return Candidate{}, false
}

func TestComplete(t *testing.T) {
	tests := []struct {
		name  string
		src   string // `|` marks the cursor
		first string // the first labels, space separated ("" for none)
		has   []string
		lacks []string
		kind  string // kind of the first candidate
		start int    // replacement start (-1: don't check)
	}{
		{"head builtin prefix", "mk|", "mkdir", nil, nil, KindBuiltin, 0},
		{"head mixes sources", "l|", "let ll ls lsx", nil, []string{"cat"}, KindKeyword, 0},
		{"head variable shadows", "na|", "name", []string{"name"}, nil, KindVariable, 0},
		{"head function", "dep|", "deploy", nil, nil, KindFunction, 0},
		{"head namespace", "js|", "json", nil, nil, KindNamespace, 0},
		{"head keyword", "whi|", "while", nil, nil, KindKeyword, 0},
		{"after semicolon", "x; ca|", "cat", nil, nil, KindBuiltin, 3},
		{"after pipe-ish and", "ls && r|", "rec return rm", nil, nil, "", 6},
		{"in block", "if true { sa|", "save", nil, nil, KindBuiltin, 10},
		{"assignment value", "let y = na|", "name", nil, nil, KindVariable, 8},
		{"subsequence after prefix", "dp|", "deploy", nil, nil, KindFunction, 0},
		{"case-insensitive", "LS|", "ls lsx", nil, nil, "", 0},
		{"str literal methods", `"abc".up|`, "upper", nil, []string{"push"}, KindMethod, 6},
		{"bound str methods", "name.tr|", "trim", nil, nil, KindMethod, 5},
		{"bound record fields", "rec.|", "", []string{"owner", "size", "keys"}, nil, "", 4},
		{"record field first", "rec.ow|", "owner", nil, nil, KindField, 4},
		{"list literal", "[1, 2].fi|", "filter find first", nil, nil, KindMethod, 7},
		{"int literal", "12.ab|", "abs", nil, nil, KindMethod, 3},
		{"size literal", "5kb.|", "", []string{"also"}, []string{"upper"}, "", 4},
		{"unknown receiver all methods", "(ls).whe|", "where", nil, nil, KindMethod, 5},
		{"chain unknown", "name.trim().up|", "upper", nil, nil, KindMethod, 12},
		{"namespace members", "json.|", "", []string{"parse"}, []string{"upper"}, "", 5},
		{"namespace member prefix", "math.ma|", "max", nil, nil, "", 5},
		{"env names", "env.PA|", "PATH", nil, nil, KindVariable, 4},
		{"optional chain", "rec?.ow|", "owner", nil, nil, KindField, 5},
		{"range is not a method", "0..a|", "", nil, []string{"abs"}, "", -1},
		{"argument lists dir", "cat |", "README.md docs/ 'my file.txt' src/", nil, []string{".hidden"}, KindPath, 4},
		{"argument prefix", "cat R|", "README.md", nil, nil, KindPath, 4},
		{"argument subdir", "ls src/|", "src/main.go src/sub/ src/util.go", nil, nil, KindPath, 3},
		{"argument nested prefix", "ls src/s|", "src/sub/", nil, nil, KindPath, 3},
		{"hidden with dot", "cat .h|", ".hidden", nil, nil, KindPath, 4},
		{"home path", "cat ~/n|", "~/notes.txt", nil, nil, KindPath, 4},
		{"absolute path", "cat /etc/ho|", "/etc/hostname /etc/hosts", nil, nil, KindPath, 4},
		{"tilde alone", "cd ~|", "~/", nil, nil, KindPath, 3},
		{"relative parent", "cd src/../d|", "src/../docs/", nil, nil, KindPath, 3},
		{"path-shaped head", "./d|", "./docs/", nil, nil, KindPath, 0},
		{"redirect target", "echo hi > R|", "README.md", nil, nil, KindPath, 10},
		{"flag has no candidates", "ls --al|", "", nil, nil, "", -1},
		{"bound head is expression", "name + na|", "name", nil, nil, KindVariable, 7},
		{"method after command capture", "cat (ls).fi|", "filter find first", nil, nil, KindMethod, 9},
		{"inside string", `"abc |`, "", nil, nil, "", -1},
		{"inside raw string", `'ca|`, "", nil, nil, "", -1},
		{"inside comment", "# ca|", "", nil, nil, "", -1},
		{"after comment line", "# note\nca|", "cat", nil, nil, KindBuiltin, 7},
		{"interpolation hole is code", `"x {na|`, "name", nil, nil, KindVariable, 4},
		{"after closed string", `"a" ; ca|`, "cat", nil, nil, KindBuiltin, 6},
		{"call argument", "save(na|", "name", nil, nil, KindVariable, 5},
		{"lambda body", "xs.map(x => na|", "name", nil, nil, KindVariable, 12},
		{"replace extends over word", "ca|t x", "cat", nil, nil, KindBuiltin, 0},
		{"number literal", "12|", "", nil, nil, "", -1},
		{"adapter subcommands", "git sta|", "stash stash_list status", nil, nil, KindCommand, 4},
		{"forced head subcommands", "^git st|", "stash stash_list status", nil, nil, KindCommand, 5},
		{"adapter subcommand list", "git |", "add stash stash_list status", nil, nil, KindCommand, 4},
		{"subcommand only first", "git add R|", "README.md", nil, nil, KindPath, 8},
		{"no subcommand falls to paths", "git R|", "README.md", nil, nil, KindPath, 4},
		{"unadapted head paths", "cat st|", "", nil, []string{"status"}, "", -1},
	}
	ctx := testCtx()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, cur := at(tt.src)
			cs := Complete(src, cur, ctx)
			n := len(strings.Fields(tt.first))
			if got := labels(cs, n); got != tt.first || (n == 0 && tt.has == nil && len(cs) != 0) {
				t.Fatalf("Complete(%q, %d) first labels = %q (all %d: %q), want %q", src, cur, got, len(cs), labels(cs, 20), tt.first)
			}
			for _, h := range tt.has {
				if _, ok := find(cs, h); !ok {
					t.Errorf("missing %q in %q", h, labels(cs, 50))
				}
			}
			for _, h := range tt.lacks {
				if _, ok := find(cs, h); ok {
					t.Errorf("unexpected %q", h)
				}
			}
			if len(cs) == 0 {
				return
			}
			if tt.kind != "" && cs[0].Kind != tt.kind {
				t.Errorf("first kind = %s, want %s", cs[0].Kind, tt.kind)
			}
			if tt.start >= 0 && int(cs[0].Replace.Start) != tt.start {
				t.Errorf("replace = %+v, want start %d", cs[0].Replace, tt.start)
			}
			for _, c := range cs {
				if int(c.Replace.Start) > cur || int(c.Replace.End) < cur || int(c.Replace.End) > len(src) {
					t.Errorf("candidate %q replaces %+v around cursor %d", c.Label, c.Replace, cur)
				}
			}
		})
	}
}

func TestReplaceCoversWholeWord(t *testing.T) {
	cs := Complete("cat x", 2, testCtx())
	c, ok := find(cs, "cat")
	if !ok || c.Replace.Start != 0 || c.Replace.End != 3 {
		t.Errorf("cat candidate = %+v (found %v), want replace 0..3", c, ok)
	}
}

func TestBounded(t *testing.T) {
	ctx := testCtx()
	many := make([]string, 500)
	for i := range many {
		many[i] = "v" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	ctx.Names = func() []string { return many }
	cs := Complete("v", 1, ctx)
	if len(cs) != MaxCandidates {
		t.Fatalf("got %d candidates, want %d", len(cs), MaxCandidates)
	}
	for i := 1; i < len(cs); i++ {
		if cs[i-1].Label > cs[i].Label {
			t.Fatalf("not sorted at %d: %q > %q", i, cs[i-1].Label, cs[i].Label)
		}
	}
}

func TestCursorClamped(t *testing.T) {
	ctx := testCtx()
	if got := labels(Complete("mk", 99, ctx), 1); got != "mkdir" {
		t.Errorf("cursor past end: %q", got)
	}
	if cs := Complete("mk", -5, ctx); len(cs) == 0 || cs[0].Replace.Start != 0 {
		t.Errorf("negative cursor: %+v", cs)
	}
	// A cursor inside a multi-byte rune moves to its start.
	src := "é"
	for _, c := range Complete(src, 1, ctx) {
		if c.Replace.Start != 0 || int(c.Replace.End) > len(src) {
			t.Errorf("mid-rune cursor candidate %+v", c)
		}
	}
}

func TestNoReadDir(t *testing.T) {
	ctx := testCtx()
	ctx.ReadDir = nil
	if cs := Complete("cat R", 5, ctx); len(cs) != 0 {
		t.Errorf("nil ReadDir offered %q", labels(cs, 10))
	}
}

func TestDefaultSources(t *testing.T) {
	// With an empty Context, methods and namespaces come from the registries.
	if _, ok := find(Complete(`"x".le`, 6, Context{}), "len"); !ok {
		t.Error("str methods missing without Context.Methods")
	}
	if _, ok := find(Complete("ma", 2, Context{}), "math"); !ok {
		t.Error("namespaces missing without Context.Namespaces")
	}
}
