package eval

import (
	"bytes"
	"github.com/shoalgo/shoal/internal/evaltest"
	"os"
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
)

// TestDocFormsTranscript runs testdata/doc_forms.txt: the forms the user
// documentation teaches (operators that return the deciding operand,
// record shorthand, module aliases, lambda bodies that are commands,
// scoped cwd/env, path literals as arguments, colon-named flags), in a
// session rooted at a temp directory holding a small project.
func TestDocFormsTranscript(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"Cargo.toml":     "[package]\nname = \"demo\"\n",
		"crates/a/x.txt": "x\n",
		"src/main.rs":    "fn main() {}\n",
		"lib/report.shl": "export fn summarize(xs) { {count: xs.len()} }\n",
		"lib/greet.shl":  "export fn hello(name) { \"hello {name}\" }\n",
	}
	for rel, body := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: dir, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	if cases := evaltest.RunFile(t, in, "testdata/doc_forms.txt", &out, nil); cases < 10 {
		t.Fatalf("only %d cases read", cases)
	}
}
