package eval

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

// `jump`/`j`: frecency navigation. Every successful navigation (cd,
// pushd, popd, jump) is recorded in the session's table, at most
// MaxJumpDirs directories; jump QUERY goes to an existing directory named
// by the query, else to the best-ranked remembered directory whose path
// contains it. The table lives with the session (it is not persisted).
func registerJump(p *Part) {
	for _, name := range []string{"jump", "j"} {
		p.Builtin(&Builtin{Name: name, Help: Help{Summary: "go to a directory visited before whose path contains the query (ranked by how often and how lately)", Usage: name + " [QUERY]", Example: "cd api\ncd ..\n" + name + " api"}, Run: runJump, Bare: true, Quiet: true, Session: true, SessionHint: bfsCdHint,
			Effects: effJump})
	}
}

// visits is the frecency table; the zero value is ready.
type visits struct {
	mu sync.Mutex
	m  map[string]*visit
}

type visit struct {
	count int
	last  time.Time
}

func (v *visits) record(dir string, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil {
		v.m = map[string]*visit{}
	}
	if e, ok := v.m[dir]; ok {
		e.count++
		e.last = now
		return
	}
	if len(v.m) >= MaxJumpDirs {
		worst, ws := "", 0.0
		for d, e := range v.m {
			if s := frecency(e, now); worst == "" || s < ws {
				worst, ws = d, s
			}
		}
		delete(v.m, worst)
	}
	v.m[dir] = &visit{count: 1, last: now}
}

// frecency weighs visits by how recent the last one was.
func frecency(e *visit, now time.Time) float64 {
	age := now.Sub(e.last)
	w := 0.25
	switch {
	case age < time.Hour:
		w = 4
	case age < 24*time.Hour:
		w = 2
	case age < 7*24*time.Hour:
		w = 0.5
	}
	return float64(e.count) * w
}

// ranked lists the remembered directories matching query (all with ""),
// best first.
func (v *visits) ranked(query string, now time.Time) []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	q := strings.ToLower(query)
	type cand struct {
		dir   string
		score float64
	}
	var cs []cand
	for d, e := range v.m {
		if q == "" || strings.Contains(strings.ToLower(d), q) {
			s := frecency(e, now)
			if q != "" && strings.Contains(strings.ToLower(lastElem(d)), q) {
				s *= 2 // the query names the directory itself
			}
			cs = append(cs, cand{d, s})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].score != cs[j].score {
			return cs[i].score > cs[j].score
		}
		return cs[i].dir < cs[j].dir
	})
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.dir
	}
	return out
}

func lastElem(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func runJump(c *BuiltinCall) (value.Value, error) {
	if len(c.Args) > 1 {
		return nil, c.Errorf(codeArg, "takes at most one query, got %d", len(c.Args))
	}
	query := ""
	if len(c.Args) == 1 {
		q, err := bfsText(c, c.Args[0])
		if err != nil {
			return nil, c.Errorf(codeArg, "the query must be a str or path, got %s", value.TypeName(c.Args[0]))
		}
		query = q
		if query != "" {
			dir := c.Abs(query)
			err := bfsCheckDir(c, dir, dir)
			if err == nil {
				c.Chdir(dir)
				return value.Path(dir), nil
			}
			if bfsPassThrough(err) {
				return nil, err // refused by the gate, or cancelled
			}
		}
	}
	for _, dir := range c.t.in.visits.ranked(query, c.t.host.Now()) {
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
