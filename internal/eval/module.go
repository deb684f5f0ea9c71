package eval

import (
	"path/filepath"
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

type moduleKey struct{ path string }

// execUse loads a module (once per session), evaluating it in a fresh root
// scope with its own directory as working directory, and binds its export
// record under the file stem.
func (t *thread) execUse(s *syntax.UseStmt, sc *scope) error {
	p := t.abs(s.Path)
	candidates := []string{p}
	if filepath.Ext(p) != ".shl" {
		candidates = []string{p + ".shl", p}
	}
	var found string
	for _, c := range candidates {
		fi, err := t.host.Stat(t.ctx, c)
		if gateStop(err) {
			return withSpan(hostError(err), s.Span)
		}
		if err == nil && !fi.IsDir() {
			found = c
			break
		}
	}
	if found == "" {
		return errorf(codeNotFound, "module not found: %s", s.Path).At(s.Span)
	}
	stem := strings.TrimSuffix(filepath.Base(found), filepath.Ext(found))
	if s.As != "" {
		stem = s.As
	}
	if v, ok := t.in.cache.Load(moduleKey{found}); ok {
		if v == nil {
			return errorf(codeCustom, "circular use of module %s", s.Path).At(s.Span)
		}
		sc.declare(stem, v.(value.Value), false)
		return nil
	}
	t.in.cache.Store(moduleKey{found}, nil)
	prog, err := t.parseFile(found, nil)
	if err != nil {
		t.in.cache.Delete(moduleKey{found})
		return withSpan(err, s.Span)
	}
	c := t.child()
	c.dir = filepath.Dir(found)
	c.fnDepth = 0
	root := newScope(nil)
	c.root = root
	if _, err := c.evalStmts(prog.Stmts, root, modeStmt&^mEmit); err != nil {
		t.in.cache.Delete(moduleKey{found})
		return withSpan(langError(err), s.Span)
	}
	var keys []string
	var vals []value.Value
	for _, st := range prog.Stmts {
		name := ""
		switch d := st.(type) {
		case *syntax.LetStmt:
			if d.Exported {
				name = d.Name
			}
		case *syntax.FnStmt:
			if d.Decl.Exported {
				name = d.Decl.Name
			}
		}
		if name == "" || name == "_" {
			continue
		}
		if v, ok := root.get(name); ok {
			keys = append(keys, name)
			vals = append(vals, v)
		}
	}
	rec := value.NewRecord(keys, vals)
	t.in.cache.Store(moduleKey{found}, value.Value(rec))
	sc.declare(stem, rec, false)
	return nil
}
