package policy

import (
	"context"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
)

// TestWithTrash: the kernel's trash lets a principal that may delete
// something move it into the trash without a grant for it, never read it
// back, never reach outside the trash (a sibling whose name starts alike,
// a symlink resolving out), never count without a delete grant, and never
// make a program in it pass a bare-name spawn grant.
func TestWithTrash(t *testing.T) {
	globs := func(ss ...string) []Glob {
		var out []Glob
		for _, s := range ss {
			g, err := CompileGlob(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, g)
		}
		return out
	}
	base := &Grants{Principal: "agent:a", Defined: true, FSRead: globs("/work/**"), FSDelete: globs("/work/**"), ProcSpawn: []string{"git"}}
	g := base.WithTrash("/state/trash/ab")
	if base.Trash != "" {
		t.Fatal("WithTrash changed its receiver")
	}
	gate := g.Authorizer()
	cases := []struct {
		op   host.Op
		want bool
	}{
		{host.Op{Effect: host.FSWrite, Target: "/state/trash/ab"}, true},
		{host.Op{Effect: host.FSWrite, Target: "/state/trash/ab/tok/1-x"}, true},
		{host.Op{Effect: host.FSDelete, Target: "/state/trash/ab/tok/1-x"}, true},
		{host.Op{Effect: host.FSDelete, Target: "/state/trash/ab/tok", Tree: true}, true},
		{host.Op{Effect: host.FSRead, Target: "/state/trash/ab/tok/1-x"}, false},
		{host.Op{Effect: host.FSWrite, Target: "/state/trash/abc/x"}, false},
		{host.Op{Effect: host.FSWrite, Target: "/state/trash"}, false},
		{host.Op{Effect: host.FSWrite, Target: "/state/trash/ab/../x"}, false},
		{host.Op{Effect: host.FSWrite, Target: "/state/trash/ab/l/x", Real: "/etc/x"}, false},
		{host.Op{Effect: host.FSWrite, Target: "/work/new"}, false},
		{host.Op{Effect: host.ProcSpawn, Target: "/state/trash/ab/tok/git"}, false},
		{host.Op{Effect: host.ProcSpawn, Target: "/usr/bin/git"}, true},
	}
	for _, c := range cases {
		err := gate.Authorize(context.Background(), c.op)
		if (err == nil) != c.want {
			t.Errorf("%s %s (real %q): allowed %v, want %v (%v)", c.op.Effect, c.op.Target, c.op.Real, err == nil, c.want, err)
		}
	}
	if got := g.Sandbox("/home/a"); len(got.ReadWrite) != len(base.Sandbox("/home/a").ReadWrite) {
		t.Errorf("the trash reached the OS sandbox: %+v", got)
	}
	// Without a delete grant nothing can be removed, so the trash counts
	// for nothing; a token without fs.delete narrows it away too.
	noDelete := (&Grants{Principal: "agent:b", Defined: true, FSRead: globs("/work/**")}).WithTrash("/state/trash/cd")
	if noDelete.Allows(host.FSWrite, "/state/trash/cd/x") {
		t.Error("the trash allowed a write to a principal that may delete nothing")
	}
	if g.Narrow([]string{"fs.read"}).Allows(host.FSWrite, "/state/trash/ab/x") {
		t.Error("a token without fs.delete still writes the trash")
	}
	if !g.Narrow([]string{"fs.delete"}).Allows(host.FSWrite, "/state/trash/ab/x") {
		t.Error("a token with fs.delete lost the trash")
	}
	for _, bad := range []string{"", "relative", "/", "/a/../b"} {
		if base.WithTrash(bad).Trash != "" {
			t.Errorf("WithTrash(%q) took it", bad)
		}
	}
}

// TestReadRoots: each read grant's directory up to its first wildcard.
func TestReadRoots(t *testing.T) {
	var g Grants
	g.Defined = true
	for _, s := range []string{"/work/**", "/srv/*/logs", "/etc/hosts", "/**", "/a/b?/c"} {
		gl, err := CompileGlob(s)
		if err != nil {
			t.Fatal(err)
		}
		g.FSRead = append(g.FSRead, gl)
	}
	got := g.ReadRoots()
	want := []string{"/work", "/srv", "/etc/hosts", "/", "/a"}
	if len(got) != len(want) {
		t.Fatalf("ReadRoots = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ReadRoots[%d] = %q, want %q", i, got[i], want[i])
		}
	}
}
