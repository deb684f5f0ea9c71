package host

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestRealPath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	in, out := filepath.Join(root, "in"), filepath.Join(root, "out")
	for _, d := range []string{filepath.Join(in, "sub"), filepath.Join(out, "deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(out, "secret"), []byte("x"), 0o600)
	links := map[string]string{
		"in/abs":    out,                          // absolute, outside
		"in/rel":    "../out/secret",              // relative, outside
		"in/sub/up": "../..",                      // relative dir link
		"in/self":   "sub",                        // inside
		"in/loop1":  "loop2", "in/loop2": "loop1", // a loop
		"in/dangle": filepath.Join(out, "new"), // to a missing file
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(root, l)); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		path   string
		follow bool
		want   string
		ok     bool
	}{
		{in + "/sub", true, in + "/sub", true},
		{in + "/abs", true, out, true},
		{in + "/abs", false, in + "/abs", true},
		{in + "/abs/secret", false, out + "/secret", true},
		{in + "/rel", true, out + "/secret", true},
		{in + "/rel", false, in + "/rel", true},
		{in + "/sub/up/out/secret", true, out + "/secret", true},
		{in + "/abs/../in", true, root + "/in", true}, // .. pops the link's target
		{in + "/self/new/file", true, in + "/sub/new/file", true},
		{in + "/dangle", true, out + "/new", true},
		{in + "/missing/../../out", true, root + "/out", true},
		{in + "/loop1", true, "", false},
		{in + "/loop1", false, in + "/loop1", true},
	}
	for _, c := range cases {
		got, ok := realPath(c.path, c.follow)
		if got != c.want || ok != c.ok {
			t.Errorf("realPath(%q, %v) = %q, %v; want %q, %v", c.path, c.follow, got, ok, c.want, c.ok)
		}
		// The component walk (the fallback, and the way on other
		// systems) must agree with the kernel's own resolution.
		got, ok = realPathWalk(c.path, c.follow)
		if got != c.want || ok != c.ok {
			t.Errorf("realPathWalk(%q, %v) = %q, %v; want %q, %v", c.path, c.follow, got, ok, c.want, c.ok)
		}
	}
}

// TestGateSeesRealTarget checks every op kind on a path reaches the
// Authorizer with Real filled in, and that a loop is refused unasked.
func TestGateSeesRealTarget(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	out := filepath.Join(root, "out")
	os.MkdirAll(filepath.Join(out, "d"), 0o755)
	os.WriteFile(filepath.Join(out, "f"), []byte("x"), 0o600)
	os.Symlink(out, filepath.Join(root, "link"))
	os.Symlink("l2", filepath.Join(root, "l1"))
	os.Symlink("l1", filepath.Join(root, "l2"))
	var asked []Op
	h := NewOS(AuthorizerFunc(func(_ context.Context, op Op) error {
		asked = append(asked, op)
		return Denied(op, "test")
	}))
	ctx := context.Background()
	l := filepath.Join(root, "link")
	calls := []struct {
		name string
		call func()
		real []string
		tree bool
	}{
		{"Stat", func() { h.Stat(ctx, l+"/f") }, []string{out + "/f"}, false},
		{"Lstat", func() { h.Lstat(ctx, l) }, []string{l}, false},
		{"ReadFile", func() { h.ReadFile(ctx, l+"/f") }, []string{out + "/f"}, false},
		{"WriteFile", func() { h.WriteFile(ctx, l+"/g", nil, false) }, []string{out + "/g"}, false},
		{"Remove", func() { h.Remove(ctx, l, false) }, []string{l}, false},
		{"RemoveTree", func() { h.Remove(ctx, out+"/d", true) }, []string{out + "/d"}, true},
		{"RemoveThrough", func() { h.Remove(ctx, l+"/f", false) }, []string{out + "/f"}, false},
		{"Rename", func() { h.Rename(ctx, l+"/f", root+"/g") }, []string{out + "/f"}, false},
		{"CopyTree", func() { h.Copy(ctx, l+"/d", root+"/c", true) }, []string{out + "/d"}, true},
		{"Symlink", func() { h.Symlink(ctx, "/etc", l+"/x") }, []string{out + "/x"}, false},
		{"MkdirAll", func() { h.MkdirAll(ctx, l+"/a/b") }, []string{out + "/a/b"}, false},
	}
	for _, c := range calls {
		asked = nil
		c.call()
		if len(asked) != 1 || asked[0].Real != c.real[0] || asked[0].Tree != c.tree {
			t.Errorf("%s asked %+v, want Real %s Tree %v", c.name, asked, c.real[0], c.tree)
		}
	}
	asked = nil
	_, err := h.ReadFile(ctx, filepath.Join(root, "l1"))
	if len(asked) != 0 || err == nil {
		t.Errorf("a symlink loop reached the gate (%v) or was not refused (%v)", asked, err)
	}
}
