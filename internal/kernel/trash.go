package kernel

import (
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// The trash's retention. rm (without --permanent) moves what it removes
// into the principal's trash under <state-dir>/trash (sessiondir.go), and
// the gate lets any principal with an fs_delete grant write beneath it, so
// without a bound the kernel's state directory (the journal's disk) would
// keep every removed byte forever. After each rm (eval.Options.Trashed,
// coalesced over TrashSweepDelay) and every TrashSweepInterval the
// kernel measures every item of every principal's trash (disk blocks,
// symlinks not followed, without recursion) and removes, oldest first by
// the time it entered the trash (its ctime):
//
//   - items older than Limits.TrashMaxAge;
//   - a principal's oldest items while its trash is over
//     Limits.TrashMaxBytes;
//   - the oldest items of any principal while all trashes together are
//     over Limits.TrashTotalBytes.
//
// An item is an entry of a per-process directory of a principal's trash
// (rm's layout), or anything else found directly in the principal's
// directory. Undoing an rm whose item was removed fails as for any trash
// item that is gone. Limits.TrashMaxEntries bounds the entries (files,
// directories, links) all trashes keep together: a sweep counts them
// newest item first, and the item in which the count passes the bound and
// every older one are removed. It also bounds what a sweep holds in
// memory.
const (
	// TrashSweepInterval is how often the trash is measured without an
	// rm to prompt it.
	TrashSweepInterval = 10 * time.Minute
	// TrashSweepDelay coalesces the sweeps rm prompts.
	TrashSweepDelay = time.Second
)

// trashItem is one removable unit of a principal's trash.
type trashItem struct {
	path  string
	owner string // the principal's directory (digest)
	added time.Time
	bytes int64 // disk blocks of its tree
	gone  bool  // removed by this sweep
}

// trashKick prompts a sweep (eval.Options.Trashed); it never blocks.
func (s *Server) trashKick() {
	select {
	case s.trashKicks <- struct{}{}:
	default:
	}
}

// trashLoop sweeps at start, after rm's prompts and every
// TrashSweepInterval, until the server stops.
func (s *Server) trashLoop() {
	defer s.sweepWG.Done()
	t := time.NewTicker(TrashSweepInterval)
	defer t.Stop()
	for {
		s.sweepTrash(time.Now())
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		case <-s.trashKicks:
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(TrashSweepDelay):
			}
		}
	}
}

// sweepTrash applies the trash's bounds at now and returns what it
// removed.
func (s *Server) sweepTrash(now time.Time) (removed int, freed int64) {
	return sweepTrash(filepath.Join(s.cfg.StateDir, "trash"), s.limits, now, s.log)
}

// sweepTrash applies l's trash bounds at now to the trashes under root.
func sweepTrash(root string, l Limits, now time.Time, log *slog.Logger) (removed int, freed int64) {
	budget := l.TrashMaxEntries
	if budget <= 0 {
		budget = math.MaxInt
	}
	items, extra := listTrash(root, &budget)
	removed += extra
	// Newest first, each measured with what is left of the entry bound:
	// once it runs out, the item it ran out in and every older one are
	// past the bound.
	sort.Slice(items, func(i, j int) bool { return items[i].added.After(items[j].added) })
	perOwner := map[string]int64{}
	var total int64
	drop := func(it *trashItem) {
		if err := os.RemoveAll(it.path); err != nil {
			log.Warn("trash: removing an item", "path", it.path, "err", err)
			return
		}
		perOwner[it.owner] -= it.bytes
		total -= it.bytes
		removed++
		freed += it.bytes
		it.gone = true
	}
	over := false
	for i := range items {
		it := &items[i]
		if !over && !it.measure(&budget) {
			over = true
		}
		perOwner[it.owner] += it.bytes
		total += it.bytes
		if over {
			drop(it)
		}
	}
	for i := len(items) - 1; i >= 0; i-- { // oldest first
		it := &items[i]
		if it.gone {
			continue
		}
		switch {
		case l.TrashMaxAge > 0 && now.Sub(it.added) > l.TrashMaxAge,
			l.TrashMaxBytes > 0 && perOwner[it.owner] > l.TrashMaxBytes,
			l.TrashTotalBytes > 0 && total > l.TrashTotalBytes:
			drop(it)
		}
	}
	if removed > 0 {
		log.Info("trash: removed the oldest items past the trash's bounds", "items", removed, "bytes", freed)
	}
	return removed, freed
}

// listTrash lists the items under root (<state-dir>/trash): each entry of
// a per-process directory of a principal's directory, and anything else
// directly in a principal's directory. Each entry listed is charged to
// budget; once it is spent, further entries are removed as they are read
// (extra counts them), so that a trash of more entries than the bound
// cannot hide items from the sweep.
func listTrash(root string, budget *int) (items []trashItem, extra int) {
	take := func(p, owner string) {
		if *budget <= 0 {
			if os.RemoveAll(p) == nil {
				extra++
			}
			return
		}
		*budget--
		if fi, err := os.Lstat(p); err == nil {
			items = append(items, trashItem{path: p, owner: owner, added: changeTime(fi)})
		}
	}
	eachEntry(root, func(o os.DirEntry) bool {
		if !o.IsDir() {
			return true
		}
		odir := filepath.Join(root, o.Name())
		eachEntry(odir, func(e os.DirEntry) bool {
			p := filepath.Join(odir, e.Name())
			if !e.IsDir() {
				take(p, o.Name())
				return true
			}
			empty := true
			eachEntry(p, func(se os.DirEntry) bool {
				empty = false
				take(filepath.Join(p, se.Name()), o.Name())
				return true
			})
			// A per-process directory left empty goes once it is old
			// (rm makes it again when it needs it).
			if fi, err := os.Lstat(p); err == nil && empty && time.Since(changeTime(fi)) > TrashSweepInterval {
				_ = os.Remove(p)
			}
			return true
		})
		return true
	})
	return items, extra
}

// eachEntry calls fn for each entry of dir, reading it in chunks so that a
// directory of millions of entries is never held whole.
// fn returning false stops the reading.
func eachEntry(dir string, fn func(os.DirEntry) bool) {
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	defer f.Close()
	for {
		ents, err := f.ReadDir(256)
		for _, e := range ents {
			if !fn(e) {
				return
			}
		}
		if err != nil || len(ents) == 0 {
			return
		}
	}
}

// measure sums the disk blocks of the item's tree (symlinks not followed)
// with an explicit stack, charging each entry below the item to budget;
// false when the budget ran out first.
func (it *trashItem) measure(budget *int) bool {
	stack := []string{it.path}
	for len(stack) > 0 {
		q := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fi, err := os.Lstat(q)
		if err != nil {
			continue
		}
		it.bytes += diskBytes(fi)
		if !fi.IsDir() {
			continue
		}
		full := true
		eachEntry(q, func(e os.DirEntry) bool {
			if *budget <= 0 {
				full = false
				return false
			}
			*budget--
			stack = append(stack, filepath.Join(q, e.Name()))
			return true
		})
		if !full {
			return false
		}
	}
	return true
}
