package kernel

import (
	"os"
	"path/filepath"
	"testing"
)

func TestVersionFromPath(t *testing.T) {
	dir := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	py := mk("bin/python3.12")
	link := filepath.Join(dir, "bin", "python3")
	if err := os.Symlink(py, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"python3", link, "3.12"},
		{"jq", mk("opt/jq-1.7.1/bin/jq"), "1.7.1"},
		{"sh", mk("usr/bin/sh"), ""},
		{"node", mk("opt/other-2.0/bin/node"), ""},
	} {
		got := versionFromPath(tc.name, tc.path)
		if (got == nil) != (tc.want == "") || got != nil && *got != tc.want {
			t.Errorf("%s at %s: version %v, want %q", tc.name, tc.path, got, tc.want)
		}
	}
}

func TestToolTableBounded(t *testing.T) {
	var tt toolTable
	for i := 0; i < MaxReefTools+10; i++ {
		tt.record("tool"+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676)), "/bin/x", "/")
	}
	if n := len(tt.list()); n != MaxReefTools {
		t.Errorf("%d tools kept, want %d", n, MaxReefTools)
	}
}
