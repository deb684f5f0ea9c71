package nav

import (
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

// `jump`/`j`: frecency navigation. Every successful navigation (cd,
// pushd, popd, jump) is recorded in the session's table (eval keeps it, at
// most eval.MaxJumpDirs directories; Context.Visited ranks it); jump QUERY
// goes to an existing directory named by the query, else to the
// best-ranked remembered directory whose path contains it.
func registerJump(p *eval.Part) {
	for _, name := range []string{"jump", "j"} {
		p.Builtin(&eval.Builtin{Name: name, Help: eval.Help{Summary: "go to a directory visited before whose path contains the query (ranked by how often and how lately)", Usage: name + " [QUERY]", Example: "cd api\ncd ..\n" + name + " api"}, Run: runJump, Bare: true, Quiet: true, Session: true, SessionHint: cdHint,
			Effects: effJump})
	}
}

func runJump(c *eval.BuiltinCall) (value.Value, error) {
	if len(c.Args) > 1 {
		return nil, c.Errorf(codeArg, "takes at most one query, got %d", len(c.Args))
	}
	query := ""
	if len(c.Args) == 1 {
		q, err := c.PathText(c.Args[0])
		if err != nil {
			return nil, c.Errorf(codeArg, "the query must be a str or path, got %s", value.TypeName(c.Args[0]))
		}
		query = q
		if query != "" {
			dir := c.Abs(query)
			err := checkDir(c, dir, dir)
			if err == nil {
				c.Chdir(dir)
				return value.Path(dir), nil
			}
			if eval.PassThrough(err) {
				return nil, err // refused by the gate, or cancelled
			}
		}
	}
	for _, dir := range c.Visited(query) {
		if dir == c.Dir() {
			continue
		}
		if fi, err := c.Host().Stat(c.Ctx(), dir); err == nil && fi.IsDir() {
			c.Chdir(dir)
			return value.Path(dir), nil
		}
	}
	if query == "" {
		return nil, c.Errorf(codeNotFound, "no remembered directory to jump to (cd somewhere first)")
	}
	return nil, c.Errorf(codeNotFound, "no directory matches `%s` (not a directory here, and none visited matches)", query)
}

// effJump: the destination is chosen at run time from the session's
// table, so what follows runs in a directory derivation cannot name.
func effJump(d *leash.Deriver) {
	d.Opaque("jump goes to a directory chosen at run time")
}
