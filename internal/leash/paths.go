package leash

import (
	"path"
	"strings"
)

// resolve makes a path text absolute and lexically clean: `~` and `~/x`
// expand to the home directory, relative paths join the current directory,
// `.` and `..` are folded. ok is false when the result is not statically
// known (no home directory, `~user`, or an unknown current directory); the
// returned text is then the cleaned input.
func (w *walker) resolve(p string) (abs string, ok bool) {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if w.env.Home == "" {
			return p, false
		}
		return path.Join(w.env.Home, p[1:]), true
	case strings.HasPrefix(p, "~"):
		return p, false
	case path.IsAbs(p):
		return path.Clean(p), true
	case !w.dirOK || w.dir == "":
		return path.Clean(p), false
	}
	return path.Join(w.dir, p), true
}
