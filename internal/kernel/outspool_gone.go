package kernel

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// goneSpools remembers how long the spools the store forgot were (the
// count bound, a session closed), so task.output on such a task reports
// its bytes as dropped instead of an empty output. It keeps at most
// goneSpoolsFor(OutputSpools) of them (a few words each), forgetting the
// oldest first.
type goneSpools struct {
	total map[outputKey]int64
	order []outputKey
}

// noteGone remembers sp's length; the store's mu is held.
func (st *outputStore) noteGone(sp *spool) {
	if sp.total == 0 {
		return
	}
	g := &st.gone
	if g.total == nil {
		g.total = map[outputKey]int64{}
	}
	if _, ok := g.total[sp.key]; !ok {
		for len(g.order) >= goneSpoolsFor(st.maxSpools) {
			delete(g.total, g.order[0])
			g.order = g.order[1:]
		}
		g.order = append(g.order, sp.key)
	}
	g.total[sp.key] = sp.total
}

// goneSpoolsFor is how many forgotten spools' lengths a store of spools
// spools remembers: sixteen times as many, at least MinGoneSpools.
func goneSpoolsFor(spools int) int { return max(16*spools, MinGoneSpools) }

// goneRead is what read answers for key when no spool holds it: all of a
// forgotten spool's bytes dropped, or nothing.
func (st *outputStore) goneRead(key outputKey) outputRead {
	n := st.gone.total[key]
	return outputRead{offset: n, next: n, dropped: n, total: n}
}

// spoolName is the file name of key's spool in the state directory: the
// same for a task across restarts (task ids are never reused within a
// session's name while its records live), and naming nothing of the
// principal or session.
func spoolName(key outputKey) string {
	h := sha256.New()
	h.Write([]byte(key.principal))
	h.Write([]byte{0})
	h.Write([]byte(key.session))
	return hex.EncodeToString(h.Sum(nil)[:12]) + "-" + strings.TrimPrefix(key.task, "task:") + ".out"
}
