package policy

import (
	"slices"
	"strings"

	"github.com/shoalgo/shoal/internal/sandbox"
)

// Sandbox lowers the grants to OS rules for the programs the principal
// spawns (internal/sandbox enforces them with Landlock):
//
//   - every fs glob is lowered to its longest concrete prefix (Glob.Root):
//     fs.read roots become ReadOnly, fs.write and fs.delete roots ReadWrite;
//     a root beneath a ReadWrite root is dropped as redundant. A glob with
//     no concrete prefix other than "/" ("/*/x", "/**/secret", "/") is dropped
//     (children may not use it) rather than widened to the whole
//     filesystem, except "/**" itself: fs.write or fs.delete "/**" leaves
//     the filesystem unrestricted (RestrictFS false), fs.read "/**" makes
//     everything readable while writes stay confined.
//   - net_connect grants are lowered to their ports (ConnectTCP): the OS
//     cannot see host names, so "*.example.com:443" lets a child connect
//     to port 443 anywhere. A grant with port "*" leaves the network
//     unrestricted (the OS rules have no "every port"), as does
//     net_listen for every port; net_listen ports become BindTCP.
//   - hermetic is passed on: a restricted dimension the kernel cannot
//     enforce then fails the spawn instead of running it unconfined.
//
// Nothing is added beyond the grants: a principal whose spawned programs
// must load themselves needs fs.read of the system directories they live
// in ("/usr/**", "/lib/**", ...). home is not consulted: `~` was expanded
// when the policy was loaded.
func (g *Grants) Sandbox(home string) sandbox.Rules {
	_ = home
	r := sandbox.Rules{RestrictFS: true, RestrictNet: true}
	if g == nil || !g.Defined {
		return r
	}
	r.Hermetic = g.Hermetic
	var ro, rw []string
	for _, gl := range slices.Concat(g.FSWrite, g.FSDelete) {
		root, all := lower(gl)
		if all {
			r.RestrictFS = false
		}
		if root != "" {
			rw = append(rw, root)
		}
	}
	for _, gl := range g.FSRead {
		if root, _ := lower(gl); root != "" {
			ro = append(ro, root)
		}
	}
	if r.RestrictFS {
		r.ReadWrite = outermost(rw, nil)
		r.ReadOnly = outermost(ro, r.ReadWrite)
	}
	unrestrictedNet := g.NetListenAny
	var connect []uint16
	for _, n := range g.NetConnect {
		if n.AnyPort {
			unrestrictedNet = true
			break
		}
		connect = append(connect, n.Port)
	}
	if unrestrictedNet {
		r.RestrictNet = false
	} else {
		slices.Sort(connect)
		r.ConnectTCP = slices.Compact(connect)
		bind := slices.Clone(g.NetListen)
		slices.Sort(bind)
		r.BindTCP = slices.Compact(bind)
	}
	return r
}

// lower returns the OS root of a glob ("" to drop it) and whether it is
// the whole filesystem ("/**").
func lower(gl Glob) (root string, all bool) {
	if len(gl.segs) == 1 && gl.segs[0] == "**" {
		return "/", true
	}
	root = gl.Root()
	if root == "/" {
		return "", false
	}
	return root, false
}

// outermost sorts and de-duplicates roots, dropping any that lies at or
// beneath another root of the list or of covered.
func outermost(roots, covered []string) []string {
	slices.Sort(roots)
	var out []string
	for _, p := range slices.Compact(roots) {
		if beneathAny(p, out) || beneathAny(p, covered) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func beneathAny(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || r == "/" || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}
