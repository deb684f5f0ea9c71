package adapters

import (
	"testing"
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
