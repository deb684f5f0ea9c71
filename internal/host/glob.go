package host

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Glob expands pattern relative to dir (or from "/" when pattern is
// absolute) and returns the matches sorted bytewise, spelled as written in
// the pattern: "./*.go" yields "./a.go", "src/**/*.go" yields
// "src/x/b.go".
//
// Per path segment, "*" matches any run of characters, "?" one character,
// "[abc]", "[a-z]" and "[!a]" or "[^a]" a class, and "\" escapes the next
// character. A segment "**" matches zero or more directories; as the last
// segment it matches every entry beneath. Names starting with "." match
// only when hidden is set or the segment itself starts with "."; "**" never
// enters such directories unless hidden is set, and never follows symlinked
// directories (so it cannot loop). A trailing "/" keeps directories only.
// Unreadable directories are skipped, as a shell does. A pattern without
// wildcards yields itself when the path exists.
//
// It asks fs_read for the directory the walk starts in: dir joined with the
// pattern's literal leading segments, failing when that is refused; and
// again for every directory it lists, skipping one the gate refuses.
func (o *OS) Glob(ctx context.Context, dir, pattern string, hidden bool) ([]string, error) {
	p, err := parsePattern(pattern)
	if err != nil {
		return nil, err
	}
	root := p.root(dir)
	if o.held() {
		out, err := o.heldGlob(ctx, root, pattern, p, hidden)
		slices.Sort(out)
		return slices.Compact(out), err
	}
	if err := o.authorize(ctx, Op{Effect: FSRead, Target: root}); err != nil {
		return nil, err
	}
	if len(p.segs) == 0 { // no wildcard at all
		fi, err := os.Stat(root)
		if err != nil || (p.dirOnly && !fi.IsDir()) {
			return nil, nil
		}
		return []string{pattern}, nil
	}
	g := globber{ctx: ctx, hidden: hidden, dirOnly: p.dirOnly, fs: osGlobFS, allow: o.globAllow(ctx, root)}
	if err := g.expand(root, p.prefix, p.segs); err != nil {
		return nil, err
	}
	slices.Sort(g.out)
	return slices.Compact(g.out), nil
}

// globPattern is a parsed pattern: literal leading segments joined as
// written (prefix), then the segments from the first wildcard on.
type globPattern struct {
	abs     bool
	prefix  string
	segs    []string
	dirOnly bool
}

// root is the directory the walk starts in (the whole path when the
// pattern has no wildcard).
func (p globPattern) root(dir string) string {
	if p.abs {
		return p.prefix
	}
	return filepath.Join(dir, p.prefix)
}

func parsePattern(pattern string) (globPattern, error) {
	var p globPattern
	if pattern == "" {
		return p, fmt.Errorf("glob: empty pattern: %w", path.ErrBadPattern)
	}
	p.abs = strings.HasPrefix(pattern, "/")
	p.dirOnly = len(pattern) > 1 && strings.HasSuffix(pattern, "/")
	var lit []string
	for _, s := range strings.Split(pattern, "/") {
		if s == "" {
			continue
		}
		if len(p.segs) == 0 && !hasMeta(s) {
			lit = append(lit, s)
			continue
		}
		if s != "**" {
			if _, err := path.Match(classBang(s), ""); err != nil {
				return p, fmt.Errorf("glob %q: %w", pattern, err)
			}
			s = classBang(s)
		} else if n := len(p.segs); n > 0 && p.segs[n-1] == "**" {
			continue // "**/**" means "**": collapsing keeps matching linear
		}
		p.segs = append(p.segs, s)
	}
	p.prefix = strings.Join(lit, "/")
	if p.abs {
		p.prefix = "/" + p.prefix
	}
	return p, nil
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// classBang rewrites the shell class negation "[!" into path.Match's "[^".
func classBang(s string) string {
	if !strings.Contains(s, "[!") {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '[':
			if i+1 < len(b) && b[i+1] == '!' {
				b[i+1] = '^'
			}
			for i++; i < len(b) && b[i] != ']'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		}
	}
	return string(b)
}

type globber struct {
	ctx     context.Context
	hidden  bool
	dirOnly bool
	fs      globFS
	allow   func(dir string) bool // may dir be listed; nil: any
	out     []string
}

// globFS is how a globber looks at the tree: by path through package os
// (osGlobFS), or beneath a held root on a gated host (heldGlobFS).
type globFS struct {
	readDir func(dir string) ([]fs.DirEntry, error)
	stat    func(p string, follow bool) (fs.FileInfo, error)
}

var osGlobFS = globFS{
	readDir: os.ReadDir,
	stat: func(p string, follow bool) (fs.FileInfo, error) {
		if follow {
			return os.Stat(p)
		}
		return os.Lstat(p)
	},
}

func joinOut(out, name string) string {
	switch out {
	case "":
		return name
	case "/":
		return "/" + name
	}
	return out + "/" + name
}

func (g *globber) add(fsPath, out string, isDir bool) {
	if g.dirOnly {
		if !isDir {
			fi, err := g.fs.stat(fsPath, true)
			if err != nil || !fi.IsDir() {
				return
			}
		}
		out += "/"
	}
	g.out = append(g.out, out)
}

func (g *globber) read(dir string) ([]fs.DirEntry, error) {
	if err := g.ctx.Err(); err != nil {
		return nil, err
	}
	if g.allow != nil && !g.allow(dir) {
		return nil, nil // refused by the gate: no matches
	}
	entries, _ := g.fs.readDir(dir) // unreadable or not a directory: no matches
	return entries, nil
}

func (g *globber) visible(name, seg string) bool {
	return g.hidden || name[0] != '.' || strings.HasPrefix(seg, ".")
}

func (g *globber) expand(dir, out string, segs []string) error {
	seg, rest := segs[0], segs[1:]
	if seg == "**" {
		return g.expandAny(dir, out, rest)
	}
	if !hasMeta(seg) {
		p := filepath.Join(dir, seg)
		if len(rest) == 0 {
			if _, err := g.fs.stat(p, false); err == nil {
				g.add(p, joinOut(out, seg), false)
			}
			return nil
		}
		return g.expand(p, joinOut(out, seg), rest)
	}
	entries, err := g.read(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if !g.visible(name, seg) {
			continue
		}
		if ok, _ := path.Match(seg, name); !ok {
			continue
		}
		p := filepath.Join(dir, name)
		if len(rest) == 0 {
			g.add(p, joinOut(out, name), e.IsDir())
			continue
		}
		if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			if err := g.expand(p, joinOut(out, name), rest); err != nil {
				return err
			}
		}
	}
	return nil
}

// expandAny handles "**": zero directories, then each real subdirectory.
func (g *globber) expandAny(dir, out string, rest []string) error {
	if len(rest) > 0 {
		if err := g.expand(dir, out, rest); err != nil {
			return err
		}
	}
	entries, err := g.read(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if !g.hidden && name[0] == '.' {
			continue
		}
		p, o := filepath.Join(dir, name), joinOut(out, name)
		if len(rest) == 0 {
			g.add(p, o, e.IsDir())
		}
		if e.IsDir() {
			if err := g.expandAny(p, o, rest); err != nil {
				return err
			}
		}
	}
	return nil
}

// globAllow is the gate a glob walk asks for every directory it lists
// (root is already judged): one the gate refuses is skipped as an
// unreadable one is, so a symlink or procfs link met on the way
// (/proc/*/fd, /proc/*/cwd) lists nothing the session may not read.
// Each directory is asked once.
func (o *OS) globAllow(ctx context.Context, root string) func(dir string) bool {
	asked := map[string]bool{root: true}
	return func(dir string) bool {
		ok, seen := asked[dir]
		if !seen {
			ok = o.authorize(ctx, Op{Effect: FSRead, Target: dir}) == nil
			asked[dir] = ok
		}
		return ok
	}
}
