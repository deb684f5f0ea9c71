package kernel

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shoalgo/shoal/internal/cas"
	"github.com/shoalgo/shoal/internal/journal"
)

// The journal's disk budget. Without one the journal database and the
// blob store grow with every exec; with Limits.JournalMaxBytes the kernel
// keeps the bytes of live database pages plus the blob files under it:
// when a check finds them over, the oldest finished rows are pruned
// (journal.DB.Prune, which keeps every unfinished row) down to
// RetentionLowWater percent of the budget, and the blobs no remaining row
// names are swept. Checks run off the exec path, on the retention
// goroutine, told by finished rows once the bytes written since the last
// check (outputs stored, rows estimated: rowBytes) reach the share of the
// headroom that check left (due; RetentionHeadroomShare), and woken every
// RetentionInterval. A kernel far under its budget wakes the goroutine
// rarely: waking it every few dozen rows, as an earlier version did, cost
// an exec "1 + 1" about a tenth of its round trip (docs/performance.md,
// "The disk budget's check").
//
// One output over Limits.JournalMaxOutput is stored as its first
// JournalMaxOutput bytes: its row's output keeps the output's whole
// length (len), the blob holds the prefix, so blob.get's len (the blob's)
// is smaller than the row's and tells it was cut. An undo record is never
// cut (eval.MaxUndoSteps bounds it).
//
// After a prune the blobs the pruned rows named are removed unless a
// remaining row names them (cas.Store.RemoveUnless: only those blobs, no
// walk of the store). No blob is spared for its age (the start-up
// sweep's cas.SweepGrace would leave an hour of output on disk); instead
// every blob stored for a row not yet committed is held as pending until
// the commit, and the removal, which runs under the retention lock every
// store takes shared, spares pending blobs too. Blobs no row ever named
// (an output whose row's commit failed) are left to the start-up sweep.

// retention is the budget state of a journalStore.
type retention struct {
	max       int64 // JournalMaxBytes; 0: no budget
	maxOutput int64 // JournalMaxOutput

	// mu is shared by every store (put and hold), exclusive for a sweep.
	mu      sync.RWMutex
	pmu     sync.Mutex
	pending map[string]int // hash -> rows holding it until they commit

	rows  atomic.Int64 // estimated bytes of the rows finished since the last check (rowBytes)
	added atomic.Int64 // output bytes stored since the last check
	// due is rows+added at which the next check is due: set by each
	// check from the headroom it measured (setDue).
	due  atomic.Int64
	kick chan struct{}

	// casBytes is the blob store's size as last measured and since
	// estimated (retention goroutine only).
	casBytes int64
	stuckLog time.Time // when a pass last said nothing was left to prune
}

// MinJournalBytes is the smallest disk budget --journal-max-bytes takes
// (other than 0, unbounded): an empty journal's database is itself some
// 100 KiB.
const MinJournalBytes = 1 << 20

// checkRetentionLimits refuses a disk budget too small to hold an empty
// journal and an output bound the blob store cannot hold.
func checkRetentionLimits(l *Limits) error {
	if l.JournalMaxBytes != 0 && l.JournalMaxBytes < MinJournalBytes {
		return fmt.Errorf("kernel: --journal-max-bytes must be 0 (unbounded) or at least %d, not %d", MinJournalBytes, l.JournalMaxBytes)
	}
	if l.JournalMaxOutput > cas.MaxBlobBytes {
		return fmt.Errorf("kernel: --journal-max-output must be at most %d (the largest blob), not %d", cas.MaxBlobBytes, l.JournalMaxOutput)
	}
	if l.JournalSmallBlobs > cas.MaxSmallBlobs {
		return fmt.Errorf("kernel: --journal-small-blobs must be at most %d, not %d", cas.MaxSmallBlobs, l.JournalSmallBlobs)
	}
	if l.JournalPackBytes > cas.MaxPackBytes {
		return fmt.Errorf("kernel: --journal-pack-bytes must be at most %d, not %d", cas.MaxPackBytes, l.JournalPackBytes)
	}
	return nil
}

// initRetention sets the budget from l (checked by checkRetentionLimits).
func (j *journalStore) initRetention(l Limits) {
	j.ret.max = l.JournalMaxBytes
	j.ret.maxOutput = l.JournalMaxOutput
	j.ret.pending = map[string]int{}
	j.ret.kick = make(chan struct{}, 1)
	j.ret.due.Store(RetentionMinCheckBytes) // until the first check measures
	if j.ret.max > 0 && j.db != nil {
		// The journal bounds its own WAL at the same share, after each
		// batch and each prune chunk, not only when a check looks.
		j.db.SetWALBound(j.ret.max / RetentionWALShare)
	}
}

// setDue sets when the next check is due, from the state's bytes a check
// measured: after a RetentionHeadroomShare-th of what is left of the
// budget, at least every RetentionMinCheckBytes.
func (r *retention) setDue(state int64) {
	r.due.Store(max((r.max-state)/RetentionHeadroomShare, RetentionMinCheckBytes))
}

// rowBytes is what a finished row counts towards the next check: its
// source, AST and effects, and RetentionRowBytes for the rest of it.
func rowBytes(e *journal.Entry) int64 {
	return int64(len(e.Src)+len(e.AST)+len(e.Effects)) + RetentionRowBytes
}

// store stores one output of the row r is writing and holds its blob
// pending until r commits (settle). An output past maxOutput is stored
// cut, its Len still the whole length.
func (r *execRow) store(kind string, data []byte) (journal.Output, error) {
	j := r.s.journal
	full := int64(len(data))
	if kind != journal.OutUndo && j.ret.maxOutput > 0 && full > j.ret.maxOutput {
		data = data[:j.ret.maxOutput]
	}
	j.ret.mu.RLock()
	defer j.ret.mu.RUnlock()
	o, err := j.put(kind, data)
	if err != nil {
		return o, err
	}
	j.ret.pmu.Lock()
	if j.ret.pending == nil {
		j.ret.pending = map[string]int{}
	}
	j.ret.pending[o.Hash]++
	j.ret.pmu.Unlock()
	r.held = append(r.held, o.Hash)
	j.ret.added.Add(int64(len(data)))
	o.Len = full
	return o, nil
}

// settle releases the blobs r held (its row is committed, or failed to
// be) and tells the retention goroutine when a check is due.
func (r *execRow) settle() {
	j := r.s.journal
	j.ret.pmu.Lock()
	for _, h := range r.held {
		if j.ret.pending[h]--; j.ret.pending[h] <= 0 {
			delete(j.ret.pending, h)
		}
	}
	j.ret.pmu.Unlock()
	r.held = nil
	if j.ret.max <= 0 {
		return
	}
	if j.ret.rows.Add(rowBytes(&r.e))+j.ret.added.Load() >= j.ret.due.Load() {
		select {
		case j.ret.kick <- struct{}{}:
		default:
		}
	}
}

// outputCap is the most bytes one stored output takes.
func (r *retention) outputCap() int64 {
	if r.maxOutput > 0 {
		return r.maxOutput
	}
	return cas.MaxBlobBytes
}

func (j *journalStore) isPending(h string) bool {
	j.ret.pmu.Lock()
	defer j.ret.pmu.Unlock()
	return j.ret.pending[h] > 0
}

// retainLoop enforces the budget until the kernel stops.
func (s *Server) retainLoop() {
	defer s.sweepWG.Done()
	j := s.journal
	t := time.NewTicker(RetentionInterval)
	defer t.Stop()
	first := true
	for {
		if !first {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
			case <-j.ret.kick:
			}
		}
		if err := s.retainPass(first); err != nil {
			s.log.Warn("journal retention", "err", err)
		}
		first = false
	}
}

// retainPass checks the budget and, when the state is over it, prunes and
// sweeps in rounds until it is under RetentionLowWater percent of it (or
// nothing more can go). measure asks for a walk of the blob store even
// when the running estimate says the state is within the budget.
func (s *Server) retainPass(measure bool) (err error) {
	j := s.journal
	r := &j.ret
	var live int64
	defer func() {
		if err != nil {
			// Nothing firm was measured, or nothing is left to prune:
			// check again soon.
			r.due.Store(RetentionMinCheckBytes)
			return
		}
		r.setDue(live + r.casBytes)
	}()
	r.rows.Store(0)
	added := r.added.Swap(0)
	if live, err = j.dbBytes(); err != nil {
		return err
	}
	if !measure && live+r.casBytes+added <= r.max {
		r.casBytes += added // an estimate (a repeated output is stored once), corrected by the next walk
		return nil
	}
	if _, r.casBytes, err = j.cas.Usage(); err != nil {
		return err
	}
	low := r.max / 100 * RetentionLowWater
	for round := 0; round < RetentionMaxRounds && live+r.casBytes > r.max; round++ {
		before, err := j.db.PruneCutoff(live+r.casBytes-low, RetentionScanRows, r.outputCap())
		if err != nil {
			return err
		}
		if before == 0 {
			if time.Since(r.stuckLog) < storeLogEvery {
				return nil
			}
			r.stuckLog = time.Now()
			return fmt.Errorf("state is %d bytes, over the budget of %d, and no finished row is left to prune", live+r.casBytes, r.max)
		}
		hashes, err := j.db.HashesBefore(before, RetentionScanRows*journal.MaxOutputs)
		if err != nil {
			return err
		}
		n, err := j.db.Prune(before)
		if err != nil {
			return err
		}
		blobs, freed, err := j.removeUnreferenced(hashes)
		r.casBytes = max(r.casBytes-freed, 0)
		if err != nil {
			return err
		}
		if live, err = j.dbBytes(); err != nil {
			return err
		}
		s.log.Info("journal pruned to its disk budget", "rows", n, "blobs", blobs, "state_bytes", live+r.casBytes, "budget", r.max)
	}
	return nil
}

// dbBytes is what the journal database takes against the budget: its
// live pages as of the applier's last batch, its WAL file and the intent
// log's segments (which hold the writes not yet applied, so they are
// counted without forcing a batch onto the applier). A WAL past a RetentionWALShare-th of the
// budget is first checkpointed and truncated (the journal's own
// checkpoints never shrink it); the database file's free pages, which
// later rows reuse, are not counted.
func (j *journalStore) dbBytes() (int64, error) {
	live, err := j.db.AppliedBytes()
	if err != nil {
		return 0, err
	}
	wal := fileSize(j.db.Path() + "-wal")
	if wal > j.ret.max/RetentionWALShare {
		// A checkpoint that finds the WAL busy (readers, a batch being
		// applied) leaves it for the next pass; pruning goes on.
		if err := j.db.TruncateWAL(); err == nil {
			wal = fileSize(j.db.Path() + "-wal")
		}
	}
	// The intent log's segments keep applied writes until the log moves
	// on; past their share they are emptied (everything in them applied).
	log := j.db.LogBytes()
	if log > j.ret.max/RetentionWALShare {
		if err := j.db.CompactLog(); err != nil {
			return 0, err
		}
		log = j.db.LogBytes()
	}
	return live + wal + log, nil
}

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// removeUnreferenced removes the blobs of hashes (those of pruned rows)
// that no remaining row names and no uncommitted row holds, in batches of
// RetentionRemoveBatch under the retention lock, and returns how many it
// removed and their bytes.
// Only the named blobs are looked at: no walk of the store, and stores
// wait at most one batch. A removed hash is forgotten as stored, so an
// equal output later is written again.
func (j *journalStore) removeUnreferenced(hashes []string) (count int, freed int64, err error) {
	keep := func(h string) bool { return j.isPending(h) || j.db.Referenced(h) }
	for len(hashes) > 0 {
		batch := hashes[:min(len(hashes), RetentionRemoveBatch)]
		hashes = hashes[len(batch):]
		j.ret.mu.Lock()
		removed, n, rerr := j.cas.RemoveUnless(batch, keep)
		for _, h := range removed {
			j.forget(h)
		}
		j.ret.mu.Unlock()
		count, freed = count+len(removed), freed+n
		if rerr != nil {
			return count, freed, rerr
		}
	}
	return count, freed, nil
}
