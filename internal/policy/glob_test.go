package policy

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
)

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		glob, path string
		want       bool
	}{
		{"/a/**", "/a", true},
		{"/a/**", "/a/b/c/d", true},
		{"/a/**", "/ab", false},
		{"/a/**", "/", false},
		{"/**", "/", true},
		{"/**", "/x/y", true},
		{"/", "/", true},
		{"/", "/x", false},
		{"/a/*", "/a/b", true},
		{"/a/*", "/a/b/c", false},
		{"/a/*", "/a", false},
		{"/a/*.txt", "/a/x.txt", true},
		{"/a/*.txt", "/a/.txt", true},
		{"/a/?", "/a/bc", false},
		{"/a/[bc]", "/a/c", true},
		{"/a/**/z", "/a/z", true},
		{"/a/**/z", "/a/b/c/z", true},
		{"/a/**/z", "/a/b/c/z/q", false},
		{"/a/**/b/**", "/a/x/b", true},
		{"/a//b/./c", "/a/b/c", true},
		{"/a/b", "/a/b/", true},
		{"/a/b", "/a/x/../b", false}, // never normalised by the matcher
		{"/a/\\*", "/a/*", true},
		{"/a/\\*", "/a/b", false},
	}
	for _, c := range cases {
		g, err := CompileGlob(c.glob)
		if err != nil {
			t.Fatalf("%s: %v", c.glob, err)
		}
		if got := g.Match(c.path); got != c.want {
			t.Errorf("%s matching %s = %v, want %v", c.glob, c.path, got, c.want)
		}
	}
}

func TestGlobCoversAndRoot(t *testing.T) {
	cases := []struct {
		glob, path string
		covers     bool
		root       string
	}{
		{"/a/**", "/a", true, "/a"},
		{"/a/**", "/a/b", true, "/a"},
		{"/a/**", "/b", false, "/a"},
		{"/a/*", "/a/b", false, "/a"},
		{"/a", "/a", false, "/a"},
		{"/a/*/c/**", "/a/b/c", true, "/a"},
		{"/**", "/", true, "/"},
		{"/etc/hosts", "/etc/hosts", false, "/etc/hosts"},
	}
	for _, c := range cases {
		g, _ := CompileGlob(c.glob)
		if got := g.Covers(c.path); got != c.covers {
			t.Errorf("%s covers %s = %v", c.glob, c.path, got)
		}
		if got := g.Root(); got != c.root {
			t.Errorf("%s root %s, want %s", c.glob, got, c.root)
		}
	}
}

func TestGlobRejects(t *testing.T) {
	for _, bad := range []string{"", "rel/x", "/a/[", "/a/x**", "/a/**b", "/a/../b", "/a\x00", "/" + strings.Repeat("x/", MaxGlobSegments+1), "/" + strings.Repeat("x", MaxGlobBytes)} {
		if _, err := CompileGlob(bad); err == nil {
			t.Errorf("CompileGlob(%.40q) accepted", bad)
		}
	}
	for _, tc := range [][2]string{{"~", "/h"}, {"~/x", "/h/x"}, {"/x", "/x"}} {
		if got, err := ExpandHome(tc[0], "/h"); err != nil || got != tc[1] {
			t.Errorf("ExpandHome(%q) = %q, %v", tc[0], got, err)
		}
	}
	for _, bad := range []string{"~bob", "~bob/x"} {
		if _, err := ExpandHome(bad, "/h"); err == nil {
			t.Errorf("ExpandHome(%q) accepted", bad)
		}
	}
}

// TestHostileGlobsAreBounded matches globs built to make a backtracking
// matcher exponential against long paths; the segment DP and path.Match's
// own (non-backtracking across stars) chunks keep each match polynomial.
// The deadline is generous: it detects exponential blow-up, not speed.
func TestHostileGlobsAreBounded(t *testing.T) {
	long := "/" + strings.Repeat("a/", 2000) + "b"
	seg := strings.Repeat("a", 4000)
	cases := []struct{ glob, path string }{
		{"/" + strings.Repeat("**/a/", 120) + "c", long},
		{"/" + strings.Repeat("*/**/", 80) + "c", long},
		{"/" + strings.Repeat("*a", 500) + "b", "/" + seg},
		{"/**/" + strings.Repeat("*a", 300) + "*b", "/" + strings.Repeat(seg+"/", 20) + seg},
	}
	for _, c := range cases {
		g, err := CompileGlob(c.glob)
		if err != nil {
			t.Fatalf("compile: %v", err)
		}
		done := make(chan bool, 1)
		go func() { done <- g.Match(c.path) }()
		select {
		case got := <-done:
			if got {
				t.Errorf("hostile glob %.30q matched", c.glob)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("hostile glob %.30q did not finish", c.glob)
		}
	}
}

func TestTreeOps(t *testing.T) {
	p, err := Parse([]byte(`[principal."a"]
fs.read = ["/w/**", "/etc"]
fs.write = ["/w/**"]
fs.delete = ["/w/*", "/w/tmp/**"]
`), "/h")
	if err != nil {
		t.Fatal(err)
	}
	auth := p.For("a", false).Authorizer()
	cases := []struct {
		op   host.Op
		want bool
	}{
		{host.Op{Effect: host.FSDelete, Target: "/w/tmp", Tree: true}, true},
		{host.Op{Effect: host.FSDelete, Target: "/w/dir", Tree: true}, false}, // "/w/*" names the entry, not its tree
		{host.Op{Effect: host.FSDelete, Target: "/w/dir"}, true},
		{host.Op{Effect: host.FSRead, Target: "/etc", Tree: true}, false}, // a listing grant is not the tree
		{host.Op{Effect: host.FSRead, Target: "/etc"}, true},
		{host.Op{Effect: host.FSRead, Target: "/w/src", Tree: true, Real: "/etc"}, false},
		{host.Op{Effect: host.FSWrite, Target: "/w/copy", Tree: true}, true},
	}
	for _, c := range cases {
		err := auth.Authorize(context.Background(), c.op)
		if (err == nil) != c.want {
			t.Errorf("%+v: %v, want allowed %v", c.op, err, c.want)
		}
	}
	// Outside every grant, a directory's tree and a file get one answer:
	// the refusal does not tell which it was.
	a := auth.Authorize(context.Background(), host.Op{Effect: host.FSDelete, Target: "/etc/ssh", Tree: true})
	b := auth.Authorize(context.Background(), host.Op{Effect: host.FSDelete, Target: "/etc/ssh"})
	if a == nil || b == nil || a.Error() != b.Error() {
		t.Errorf("tree and plain refusals differ: %v / %v", a, b)
	}
}
