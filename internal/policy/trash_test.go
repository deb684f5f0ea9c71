package policy

import (
	"context"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
)

// TestWithTrash: the kernel's trash lets rm and undo (their context
// marked with host.WithTrashMove) move what a principal may delete into
// the trash and back without a grant for it, while no other op reaches it:
// nothing can be written, deleted or read there by a program naming the
// path, nothing outside the trash passes for being marked (a sibling whose
// name starts alike, a symlink resolving out), it never counts without a
// delete grant, and a program in it never passes a bare-name spawn grant.
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
	plain, moving := context.Background(), host.WithTrashMove(context.Background())
	cases := []struct {
		op          host.Op
		plain, move bool // allowed without and with the trash-move mark
	}{
		{host.Op{Effect: host.FSWrite, Target: "/state/trash/ab"}, false, true},
		{host.Op{Effect: host.FSWrite, Target: "/state/trash/ab/tok/1-x"}, false, true},
		{host.Op{Effect: host.FSDelete, Target: "/state/trash/ab/tok/1-x"}, false, true},
		{host.Op{Effect: host.FSDelete, Target: "/state/trash/ab/tok", Tree: true}, false, true},
		{host.Op{Effect: host.FSRead, Target: "/state/trash/ab/tok/1-x"}, false, true},
		{host.Op{Effect: host.FSWrite, Target: "/state/trash/abc/x"}, false, false},
		{host.Op{Effect: host.FSWrite, Target: "/state/trash"}, false, false},
		{host.Op{Effect: host.FSWrite, Target: "/state/trash/ab/../x"}, false, false},
		{host.Op{Effect: host.FSWrite, Target: "/state/trash/ab/l/x", Real: "/etc/x"}, false, false},
		{host.Op{Effect: host.FSWrite, Target: "/work/new"}, false, false},
		{host.Op{Effect: host.FSDelete, Target: "/work/old"}, true, true},
		{host.Op{Effect: host.FSDelete, Target: "/etc/passwd"}, false, false},
		{host.Op{Effect: host.ProcSpawn, Target: "/state/trash/ab/tok/git"}, false, false},
		{host.Op{Effect: host.ProcSpawn, Target: "/usr/bin/git"}, true, true},
	}
	for _, c := range cases {
		for _, ctx := range []struct {
			ctx  context.Context
			want bool
			name string
		}{{plain, c.plain, "plain"}, {moving, c.move, "trash move"}} {
			err := gate.Authorize(ctx.ctx, c.op)
			if (err == nil) != ctx.want {
				t.Errorf("%s: %s %s (real %q): allowed %v, want %v (%v)", ctx.name, c.op.Effect, c.op.Target, c.op.Real, err == nil, ctx.want, err)
			}
		}
	}
	if got := g.Sandbox("/home/a"); len(got.ReadWrite) != len(base.Sandbox("/home/a").ReadWrite) {
		t.Errorf("the trash reached the OS sandbox: %+v", got)
	}
	// A plan names the trash directory as rm's write; nothing beneath it
	// passes a plan.
	if !g.Allows(host.FSWrite, "/state/trash/ab") {
		t.Error("rm's trash effect is not allowed in a plan")
	}
	if g.Allows(host.FSWrite, "/state/trash/ab/x") || g.Allows(host.FSDelete, "/state/trash/ab/x") {
		t.Error("a plan may write or delete inside the trash")
	}
	// Without a delete grant nothing can be removed, so the trash counts
	// for nothing; a token without fs.delete narrows it away too.
	noDelete := (&Grants{Principal: "agent:b", Defined: true, FSRead: globs("/work/**")}).WithTrash("/state/trash/cd")
	if noDelete.Allows(host.FSWrite, "/state/trash/cd") {
		t.Error("the trash allowed a write to a principal that may delete nothing")
	}
	if err := noDelete.Authorizer().Authorize(moving, host.Op{Effect: host.FSWrite, Target: "/state/trash/cd/x"}); err == nil {
		t.Error("a trash move reached the trash of a principal that may delete nothing")
	}
	if g.Narrow([]string{"fs.read"}).Allows(host.FSWrite, "/state/trash/ab") {
		t.Error("a token without fs.delete still writes the trash")
	}
	if !g.Narrow([]string{"fs.delete"}).Allows(host.FSWrite, "/state/trash/ab") {
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
