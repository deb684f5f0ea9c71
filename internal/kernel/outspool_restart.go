package kernel

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/shoalgo/shoal/internal/journal"
)

// Output spools across a restart. A spool file is named after its task
// (spoolName), so a kernel starting on the same state directory adopts
// the spool of every task record its journal kept, oldest first, within
// the same bounds as new output (a spool past them is trimmed or
// forgotten as it would have been), and removes every other file. An
// adopted spool holds what its task printed before the old kernel
// stopped: its length is the file's; the bytes the old kernel had
// dropped are punched holes, counted in dropped. A task that ended with
// output but whose spool is gone reports its bytes dropped.

// adopt takes over the spools of rows (oldest first) and removes the
// files of the directory no row names.
func (st *outputStore) adopt(rows []journal.TaskRow) {
	if st.dir == "" {
		return
	}
	named := make(map[string]bool, len(rows))
	for _, r := range rows {
		key := outputKey{principal: r.Principal, session: r.Session, task: "task:" + strconv.FormatInt(r.Seq, 10)}
		name := spoolName(key)
		named[name] = true
		if !st.adoptOne(key, filepath.Join(st.dir, name)) && r.OutBytes > 0 {
			st.mu.Lock()
			st.noteGone(&spool{key: key, total: r.OutBytes})
			st.mu.Unlock()
		}
	}
	entries, err := os.ReadDir(st.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !named[e.Name()] {
			_ = os.Remove(filepath.Join(st.dir, e.Name()))
		}
	}
}

// adoptOne adopts the spool file at name for key, reporting false when
// there is none.
func (st *outputStore) adoptOne(key outputKey, name string) bool {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			_ = os.Remove(name)
		}
		return false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return false
	}
	size := fi.Size()
	dropped := min(firstData(f, size), size)
	fsp := &fileSpool{f: f, name: name, punches: st.punches, requested: dropped, punched: dropped &^ (outputQuantum - 1)}
	sp := &spool{key: key, total: size, dropped: dropped, data: fsp}
	st.mu.Lock()
	defer st.mu.Unlock()
	if old := st.spools[key]; old != nil {
		st.forgetLocked(old)
	}
	for len(st.order) >= st.maxSpools && len(st.order) > 0 {
		st.forgetLocked(st.order[0])
	}
	st.spools[key] = sp
	st.order = append(st.order, sp)
	st.account(sp, 0, size-dropped)
	if kept := sp.total - sp.dropped; kept > st.perTask {
		st.trim(sp, kept-st.perTask)
	}
	for st.byPrin[key.principal] > st.perPrin {
		if !st.trimOldest(key.principal, st.byPrin[key.principal]-st.perPrin) {
			break
		}
	}
	for st.kept > st.total {
		if !st.trimOldest("", st.kept-st.total) {
			break
		}
	}
	return true
}

// spoolTotal is how many bytes key's task printed, as far as the store
// knows.
func (st *outputStore) spoolTotal(key outputKey) (int64, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if sp := st.spools[key]; sp != nil {
		return sp.total, true
	}
	n, ok := st.gone.total[key]
	return n, ok
}
