package policy

import (
	"path"
	"strings"
)

// WithTrash returns a copy of g that knows dir, the kernel's own trash for
// this principal: `rm` moves what it removes there, and that needs no
// grant the person never wrote. It counts only while the grants allow some
// fs_delete (nothing can be removed into it otherwise). A plan may name
// the directory itself as written (rm's trash effect), and at run time the
// gate lets an op reach dir and what lies beneath it only when the op's
// context carries rm's or undo's own move (host.WithTrashMove): no other
// op, whatever a program names, can write, delete or read there, so what
// went to the trash cannot be read back, nor can files of a principal's
// choosing be planted there. It is not lowered into the OS sandbox
// (spawned programs get nothing of it). dir must be absolute and clean
// (the caller's own directory, with symlinks resolved); anything else
// leaves g as it is.
func (g *Grants) WithTrash(dir string) *Grants {
	if g == nil || !normalised(dir) || dir == "/" {
		return g
	}
	c := g.clone()
	c.Trash = dir
	return c
}

// isTrash reports whether p is the trash directory itself, and the trash
// counts.
func (g *Grants) isTrash(p string) bool {
	return g.Trash != "" && len(g.FSDelete) > 0 && p == g.Trash
}

// inTrash reports whether p (absolute and clean) is the trash or lies
// beneath it, and the trash counts (see WithTrash).
func (g *Grants) inTrash(p string) bool {
	if g.Trash == "" || len(g.FSDelete) == 0 || !normalised(p) {
		return false
	}
	return p == g.Trash || strings.HasPrefix(p, g.Trash+"/")
}

// ReadRoots lists, in policy order, the directory each fs_read grant
// starts at: the glob's leading segments up to its first wildcard
// ("/work/**" is "/work", "/srv/*/logs" is "/srv"). A session of a
// principal that may not read the kernel's directory starts in the first
// of these that it may read and that exists.
func (g *Grants) ReadRoots() []string {
	if g == nil || !g.Defined {
		return nil
	}
	var out []string
	for _, gl := range g.FSRead {
		root := "/"
		for _, s := range gl.segs {
			if s == "**" || strings.ContainsAny(s, `*?[\`) {
				break
			}
			root = path.Join(root, s)
		}
		out = append(out, root)
	}
	return out
}
