package adapters

import (
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// FuzzParseFile: any bytes decode to commands and positioned errors,
// never a panic; every command returned binds an empty call or refuses it
// with an error.
func FuzzParseFile(f *testing.F) {
	for _, name := range []string{"git.toml", "cargo.toml", "system.toml", "transfer.toml"} {
		data, err := bundledFS.ReadFile("bundled/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("[cmd.x]\nparams = { a = \"list<list<int>>\" }\npositional = [\"a\"]\neffects = [\"fs.read($a|cwd) if a\"]\n"))
	f.Add([]byte("[cmd.x.sub.y]\noutput = { parse = \"cols\", type = \"{a: int, \\\"b c\\\": str}\" }\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cmds, errs := ParseFile("f.toml", data)
		for _, e := range errs {
			if e.Error() == "" {
				t.Fatal("empty error")
			}
		}
		for _, c := range cmds {
			_, _ = Bind(c, nil)
			for name := range c.Subs {
				_, _ = Bind(c, words(name, "--x", "-y", "1", "--", "z"))
			}
		}
	})
}

// FuzzParseOutput: every parser takes any bytes and either yields a value
// or leaves the output raw.
func FuzzParseOutput(f *testing.F) {
	f.Add(byte(0), []byte(`{"a":[1,2]}`))
	f.Add(byte(5), []byte("1 .M N... 1 2 3 a b p\n? x\n"))
	f.Add(byte(6), []byte("H A\n1 2 3\n"))
	f.Add(byte(4), []byte("a\x00b\x00"))
	f.Add(byte(2), []byte("a,b\n\"x\n\",2\n"))
	strategies := []string{"json", "ndjson", "csv", "tsv", "z-records", "porcelain-v2", "cols", "cols2", "tsv-headerless", "lines", "kv", "none"}
	f.Fuzz(func(t *testing.T, which byte, out []byte) {
		s := &Spec{Parse: strategies[int(which)%len(strategies)], OutType: "table<{a: int, b: size_kb, c: str}>"}
		v, ok := ParseOutput(s, out)
		if ok && v == nil {
			t.Fatal("parsed to nil")
		}
	})
}

// FuzzHintFields: any hint text yields fields or an error.
func FuzzHintFields(f *testing.F) {
	f.Add("table<{a: int, \"b\": list<{c: str}>}>")
	f.Fuzz(func(t *testing.T, hint string) {
		fs, err := HintFields(hint)
		if err == nil && len(fs) == 0 {
			t.Fatal("no error and no fields")
		}
	})
}

// FuzzBind: any words bound to any bundled command bind, pass through
// or are refused with an arg_error; a pass-through forwards every word.
func FuzzBind(f *testing.F) {
	f.Add(uint16(0), "status -sb --porcelain x")
	f.Add(uint16(3), "log -n5 --oneline -- a")
	f.Add(uint16(7), "build --jobs --release=maybe -Z")
	f.Add(uint16(9), "stash_list --date=x ?")
	names := Bundled().Names()
	f.Fuzz(func(t *testing.T, which uint16, line string) {
		cmd, _ := Bundled().Lookup(names[int(which)%len(names)])
		ws := words(strings.Fields(line)...)
		b, err := Bind(cmd, ws)
		if err != nil {
			if ve, ok := err.(*value.Error); !ok || ve.Code != "arg_error" {
				t.Fatalf("%s %q: %T %v", cmd.Name, line, err, err)
			}
			return
		}
		if b.Pass != "" && (b.Spec.Parse != "none" || len(b.Argv) < len(ws)) {
			t.Fatalf("%s %q: passes through with parse %s and argv %q", cmd.Name, line, b.Spec.Parse, argvText(b.Argv))
		}
		_ = b.Effects()
	})
}

// FuzzStatusBranch: porcelain output with any branch headers parses or
// stays raw, and what statement position shows never panics.
func FuzzStatusBranch(f *testing.F) {
	f.Add([]byte("# branch.oid (initial)\n# branch.head main\n"))
	f.Add([]byte("# branch.oid abc\n# branch.head (detached)\n# branch.upstream o/m\n# branch.ab +1 -2\nu UU N... 1 2 3 4 a b c p\n"))
	f.Add([]byte("# branch.ab +x -\n"))
	s := &Spec{Parse: "porcelain-v2"}
	f.Fuzz(func(t *testing.T, out []byte) {
		for _, args := range []map[string]Arg{nil, {"branch": {Value: value.Bool(true)}}} {
			v, ok := ParseCall(s, args, out)
			if ok && v == nil {
				t.Fatal("parsed to nil")
			}
			if ok {
				Shown(s, out, v)
			}
		}
	})
}
