package eval

import (
	"sort"
	"strings"
	"sync"
	"time"
)

// The session's frecency table: every successful navigation (Context.Chdir:
// cd, pushd, popd, jump) is recorded, at most MaxJumpDirs directories, and
// Context.Visited ranks them for internal/lib/nav's jump. The table lives
// with the session (it is not persisted).

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
