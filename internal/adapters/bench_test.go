package adapters

import "testing"

// BenchmarkDecodeBundled: decoding the whole bundled catalog, what the CLI
// pays once, the first time a program runs a command.
func BenchmarkDecodeBundled(b *testing.B) {
	for b.Loop() {
		c := NewCatalog().Layer(bundledFS, "bundled")
		if c.Len() == 0 {
			b.Fatal("empty")
		}
	}
}

// BenchmarkBindCargoBuild: binding one call to its declaration.
func BenchmarkBindCargoBuild(b *testing.B) {
	cmd, _ := Bundled().Lookup("cargo")
	ws := words("build", "--jobs", "8", "--release", "-p", "core")
	for b.Loop() {
		if _, err := Bind(cmd, ws); err != nil {
			b.Fatal(err)
		}
	}
}
