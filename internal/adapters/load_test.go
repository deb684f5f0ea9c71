package adapters

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestBundledLoadsWithoutWarnings(t *testing.T) {
	c := Bundled()
	for _, w := range c.Warnings() {
		t.Errorf("bundled catalog: %v", w)
	}
	for _, head := range []string{"git", "cargo", "ps", "df", "du", "rg", "curl", "tar"} {
		if _, ok := c.Lookup(head); !ok {
			t.Errorf("bundled catalog has no %s", head)
		}
	}
	if c.Len() < 45 {
		t.Errorf("bundled catalog has %d heads, want at least 45", c.Len())
	}
}

func TestParseFileErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
		keep            int // commands that survive
	}{
		{"syntax", "[cmd.x\nbin = 1\n", "x.toml:1:", 0},
		{"unknown field", "[cmd.x]\nbinn = \"x\"\n", `x.toml:2:1: unknown field "cmd.x.binn"`, 0},
		{"wrong type", "[cmd.x]\nok_codes = [\"a\"]\n", "x.toml:2:", 0},
		{"bad class", "[cmd.x]\nclass = \"gui\"\n[cmd.y]\n", `x.toml:1:1: command "x": unknown class "gui"`, 1},
		{"payload on cli", "[cmd.x]\ninvoke_payload = \"arg\"\n", "invoke_payload is only for interpreter-class commands", 0},
		{"bad param type", "[cmd.x]\nparams = { n = \"integer\" }\n", `parameter "n": unknown parameter type "integer"`, 0},
		{"positional undeclared", "[cmd.x.sub.s]\npositional = [\"a\"]\n", `subcommand "s": positional "a" is not a declared parameter`, 0},
		{"short undeclared", "[cmd.x]\nparams = { a = \"bool\" }\nflags = { short = { b = \"bee\" } }\n", `short flag "b" names "bee"`, 0},
		{"short two letters", "[cmd.x]\nparams = { a = \"bool\" }\nflags = { short = { ab = \"a\" } }\n", `short flag "ab" is not one letter`, 0},
		{"consumed undeclared", "[cmd.x]\nparams = { a = \"bool\" }\nconsumed = [\"b\"]\n", `consumed "b" is not a declared parameter`, 0},
		{"bad parser", "[cmd.x]\noutput = { parse = \"xml\" }\n", `unknown output parser "xml"`, 0},
		{"cols without fields", "[cmd.x]\ninvoke = []\noutput = { parse = \"cols\", type = \"table\" }\n", "names no fields", 0},
		{"bad effect", "[cmd.x]\neffects = [\"fs.chmod(cwd)\"]\n", `unknown kind "fs.chmod"`, 0},
		{"effect param", "[cmd.x]\neffects = [\"fs.read($root)\"]\n", `names $root, not a declared parameter`, 0},
		{"effect if", "[cmd.x]\nparams = { n = \"int?\" }\neffects = [\"fs.read(cwd) if n\"]\n", `not a declared bool parameter`, 0},
		{"deep type", "[cmd.x]\nparams = { n = \"" + strings.Repeat("list<", 9) + "int" + strings.Repeat(">", 9) + "\" }\n", "nests more than", 0},
	}
	for _, tc := range cases {
		cmds, errs := ParseFile("x.toml", []byte(tc.src))
		if len(errs) == 0 {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if got := errs[0].Error(); !strings.Contains(got, tc.want) {
			t.Errorf("%s: error %q, want it to contain %q", tc.name, got, tc.want)
		}
		if len(cmds) != tc.keep {
			t.Errorf("%s: %d commands survived, want %d", tc.name, len(cmds), tc.keep)
		}
	}
}

func TestLayerMergesAndWarns(t *testing.T) {
	user := fstest.MapFS{
		"adapters/a.toml":     {Data: []byte("[cmd.acme]\nbin = \"acme-bin\"\n[cmd.ps]\ninvoke = [\"-e\"]\n")},
		"adapters/b.toml":     {Data: []byte("[cmd.acme]\nbin = \"acme2\"\n")},
		"adapters/bad.toml":   {Data: []byte("[cmd.oops\n")},
		"adapters/notes.txt":  {Data: []byte("ignored")},
		"adapters/sub/x.toml": {Data: []byte("[cmd.nested]\n")},
	}
	c := Bundled().Layer(user, "adapters")
	acme, ok := c.Lookup("acme")
	if !ok || acme.Bin != "acme2" {
		t.Fatalf("acme = %+v, want the later file's definition", acme)
	}
	if _, ok := c.Lookup("nested"); ok {
		t.Error("a subdirectory's file was loaded")
	}
	if git, ok := c.Lookup("git"); !ok || git.Source != "bundled/git.toml" {
		t.Error("layering a user directory dropped bundled git")
	}
	ps, _ := c.Lookup("ps")
	if ps.Source != "adapters/a.toml" {
		t.Errorf("ps from %s, want the user's", ps.Source)
	}
	var msgs []string
	for _, w := range c.Warnings() {
		msgs = append(msgs, w.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{`adapters/b.toml: command "acme" replaces the definition in adapters/a.toml`, "adapters/bad.toml:1:", `command "ps" replaces the definition in bundled/system.toml`} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings %q lack %q", all, want)
		}
	}
	if Bundled().Len() == c.Len() {
		if _, ok := Bundled().Lookup("acme"); ok {
			t.Error("layering changed the bundled catalog")
		}
	}
	missing := Bundled().Layer(fstest.MapFS{}, "nope")
	if len(missing.Warnings()) != 0 {
		t.Errorf("a missing directory warned: %v", missing.Warnings())
	}
}

func TestFileTooLarge(t *testing.T) {
	big := fstest.MapFS{"d/big.toml": {Data: []byte("# " + strings.Repeat("x", MaxFileBytes))}}
	c := NewCatalog().Layer(big, "d")
	if len(c.Warnings()) != 1 || !strings.Contains(c.Warnings()[0].Error(), "larger than") {
		t.Errorf("warnings = %v", c.Warnings())
	}
}

func TestLazyAndUserDir(t *testing.T) {
	built := 0
	c := Lazy(func() *Catalog { built++; return Bundled() })
	if built != 0 {
		t.Fatal("built before use")
	}
	if _, ok := c.Lookup("git"); !ok || built != 1 {
		t.Fatalf("lookup after lazy build: built %d", built)
	}
	c.Names()
	if built != 1 {
		t.Fatalf("built %d times", built)
	}
	env := map[string]string{"HOME": "/home/u"}
	if got := UserDir(func(k string) string { return env[k] }); got != "/home/u/.config/shoal/adapters" {
		t.Errorf("UserDir = %q", got)
	}
	env["XDG_CONFIG_HOME"] = "/x"
	if got := UserDir(func(k string) string { return env[k] }); got != "/x/shoal/adapters" {
		t.Errorf("UserDir = %q", got)
	}
	if got := UserDir(func(string) string { return "" }); got != "" {
		t.Errorf("UserDir = %q", got)
	}
}

func TestInterpreterClass(t *testing.T) {
	py, ok := Bundled().Lookup("python")
	if !ok || py.Class != ClassInterpreter || py.Bin != "python3" || py.Payload != "arg" {
		t.Fatalf("python = %+v", py)
	}
	if strings.Join(py.BlockInvoke, " ") != "-c" {
		t.Errorf("block invoke %q", py.BlockInvoke)
	}
	// The command form passes words as written: python script.py -v.
	b, err := Bind(py, words("script.py", "-v"))
	if err != nil || argvText(b.Argv) != "script.py -v" {
		t.Errorf("python script.py -v: %q, %v", argvText(b.Argv), err)
	}
	cmds, errs := ParseFile("i.toml", []byte("[cmd.sq]\nclass = \"interpreter\"\ninvoke_payload = \"stdin\"\n"))
	if len(errs) != 0 || cmds[0].Payload != "stdin" || cmds[0].BlockInvoke == nil {
		t.Errorf("stdin interpreter: %+v %v", cmds, errs)
	}
}
