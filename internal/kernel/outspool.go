package kernel

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// outputQuantum is the least a retention trim drops at once, so that a
// task printing at full speed is not trimmed (nor its spool file
// punched) on every write.
const outputQuantum = 64 << 10

// outputKey names a task's output: tasks are numbered per session.
type outputKey struct {
	principal, session, task string
}

// outputStore keeps every task's output, each in a spool of its own,
// within three bounds (Limits.TaskOutputBytes per task,
// PrincipalOutputBytes per principal, KernelOutputBytes in all; the
// oldest bytes are dropped first, from the oldest spool, and counted) and
// at most Limits.OutputSpools spools (past it the oldest is forgotten).
// With a state directory a spool is a file in <state-dir>/output, created
// by the kernel and read through its handle; without one it is memory.
type outputStore struct {
	perTask, perPrin, total int64
	maxSpools               int
	dir                     string // "" keeps output in memory
	punches                 chan punchReq
	stop                    chan struct{} // closed by close: the puncher ends

	mu     sync.Mutex
	spools map[outputKey]*spool
	order  []*spool // oldest first
	byPrin map[string]int64
	kept   int64
	gone   goneSpools // forgotten spools' lengths (outspool_gone.go)
}

func newOutputStore(l Limits, stateDir string) (*outputStore, error) {
	st := &outputStore{perTask: l.TaskOutputBytes, perPrin: l.PrincipalOutputBytes, total: l.KernelOutputBytes,
		maxSpools: l.OutputSpools, spools: map[outputKey]*spool{}, byPrin: map[string]int64{}}
	if stateDir != "" && spoolFilesSupported {
		dir := filepath.Join(stateDir, "output")
		// Spools outlive the kernel that wrote them: a restarted kernel
		// adopts those its task records name (outspool_restart.go) and
		// removes the rest.
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("kernel: output spools: %w", err)
		}
		st.dir = dir
		st.punches, st.stop = make(chan punchReq, outputPunches), make(chan struct{})
		go puncher(st.punches, st.stop)
	}
	return st, nil
}

// close stops the puncher (at shutdown): later drops punch nothing.
func (st *outputStore) close() {
	if st != nil && st.stop != nil {
		close(st.stop)
	}
}

// spool is one task's output: bytes [dropped, total) are retained.
type spool struct {
	key     outputKey
	total   int64 // bytes written, both streams (guarded by the store's mu)
	dropped int64
	data    spoolData // nil once forgotten
}

// spoolData holds a spool's retained bytes, addressed by output offset.
type spoolData interface {
	write(off int64, p []byte) error
	readAt(p []byte, off int64) (int, error)
	// drop gives up the bytes before off.
	drop(off int64)
	close()
}

// open returns key's spool, creating it (and forgetting the oldest spool
// when the store holds OutputSpools).
func (st *outputStore) open(key outputKey) *spool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if sp := st.spools[key]; sp != nil {
		st.forgetLocked(sp) // a task number used again: a new session of the name
	}
	for len(st.order) >= st.maxSpools && len(st.order) > 0 {
		st.forgetLocked(st.order[0])
	}
	sp := &spool{key: key}
	sp.data = st.newData(key)
	st.spools[key] = sp
	st.order = append(st.order, sp)
	return sp
}

func (st *outputStore) newData(key outputKey) spoolData {
	if st.dir != "" {
		name := filepath.Join(st.dir, spoolName(key))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
		if err == nil {
			return &fileSpool{f: f, name: name, punches: st.punches}
		}
		// A spool that cannot be a file keeps its output in memory.
	}
	return &memSpool{}
}

// write appends p, written to stream, to sp and trims what the bounds
// no longer admit; it returns p's offset.
func (st *outputStore) write(sp *spool, p []byte) int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	off := sp.total
	sp.total += int64(len(p))
	if sp.data == nil {
		sp.dropped = sp.total
		return off
	}
	if err := sp.data.write(off, p); err != nil {
		// A spool file that cannot be written loses what it was given.
		sp.data.drop(sp.total)
		st.account(sp, sp.total-sp.dropped-int64(len(p)), 0)
		sp.dropped = sp.total
		return off
	}
	st.account(sp, 0, int64(len(p)))
	if kept := sp.total - sp.dropped; kept > st.perTask {
		st.trim(sp, kept-st.perTask)
	}
	for st.byPrin[sp.key.principal] > st.perPrin {
		if !st.trimOldest(sp.key.principal, st.byPrin[sp.key.principal]-st.perPrin) {
			break
		}
	}
	for st.kept > st.total {
		if !st.trimOldest("", st.kept-st.total) {
			break
		}
	}
	return off
}

// account moves the retained-byte counts from minus to plus bytes for sp.
func (st *outputStore) account(sp *spool, minus, plus int64) {
	d := plus - minus
	st.kept += d
	if st.byPrin[sp.key.principal] += d; st.byPrin[sp.key.principal] <= 0 {
		delete(st.byPrin, sp.key.principal)
	}
}

// trim drops at least n of sp's oldest bytes (a quantum at least, as far
// as it retains).
func (st *outputStore) trim(sp *spool, n int64) {
	n = min(max(n, outputQuantum), sp.total-sp.dropped)
	if n <= 0 {
		return
	}
	sp.dropped += n
	sp.data.drop(sp.dropped)
	st.account(sp, n, 0)
}

// trimOldest trims n bytes from the oldest spool of principal (any
// principal's when ""), reporting false when none retains anything.
func (st *outputStore) trimOldest(principal string, n int64) bool {
	for _, sp := range st.order {
		if (principal == "" || sp.key.principal == principal) && sp.total > sp.dropped && sp.data != nil {
			st.trim(sp, n)
			return true
		}
	}
	return false
}

// forgetSession drops every spool of a closed session.
func (st *outputStore) forgetSession(principal, session string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, sp := range append([]*spool(nil), st.order...) {
		if sp.key.principal == principal && sp.key.session == session {
			st.forgetLocked(sp)
		}
	}
}

func (st *outputStore) forgetLocked(sp *spool) {
	if st.spools[sp.key] == sp {
		delete(st.spools, sp.key)
	}
	for i, o := range st.order {
		if o == sp {
			st.order = append(st.order[:i], st.order[i+1:]...)
			break
		}
	}
	if sp.data != nil {
		st.account(sp, sp.total-sp.dropped, 0)
		sp.data.close()
		sp.data = nil
		sp.dropped = sp.total
	}
	st.noteGone(sp)
}

// outputRead is what read found.
type outputRead struct {
	data         []byte
	offset, next int64
	dropped      int64
	total        int64
}

// read returns up to limit bytes of key's output from off (from the
// first byte retained when off is before it).
func (st *outputStore) read(key outputKey, off, limit int64) (outputRead, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	sp := st.spools[key]
	if sp == nil {
		return st.goneRead(key), nil
	}
	r := outputRead{dropped: sp.dropped, total: sp.total}
	off = min(max(off, sp.dropped), sp.total)
	n := min(limit, sp.total-off)
	r.offset, r.next = off, off
	if n <= 0 || sp.data == nil {
		return r, nil
	}
	buf := make([]byte, n)
	got, err := sp.data.readAt(buf, off)
	if err != nil {
		return r, fmt.Errorf("read output spool: %w", err)
	}
	r.data, r.next = buf[:got], off+int64(got)
	return r, nil
}

// memSpool keeps a spool's retained bytes in memory.
type memSpool struct {
	base int64 // offset of buf[0]
	buf  []byte
}

func (m *memSpool) write(_ int64, p []byte) error {
	m.buf = append(m.buf, p...)
	return nil
}

func (m *memSpool) readAt(p []byte, off int64) (int, error) {
	if off < m.base {
		return 0, nil
	}
	return copy(p, m.buf[off-m.base:]), nil
}

func (m *memSpool) drop(off int64) {
	n := min(off-m.base, int64(len(m.buf)))
	if n <= 0 {
		return
	}
	// Copied down rather than resliced, so the dropped bytes are freed.
	m.buf = append(m.buf[:0:0], m.buf[n:]...)
	m.base += n
}

func (m *memSpool) close() { m.buf = nil }

// fileSpool keeps a spool's bytes in a file at their output offsets; the
// dropped ones are punched out (punchHole) by the store's puncher, off the
// writer's path (a punch waits for the range's writeback), so the file
// holds disk blocks for little more than the retained bytes.
type fileSpool struct {
	f         *os.File
	name      string
	punches   chan<- punchReq
	requested int64 // guarded by the store's mu
	punched   int64 // the puncher's own
}

// punchReq asks the puncher to free s's bytes before end, and to close
// done (when not nil) once it has.
type punchReq struct {
	s    *fileSpool
	end  int64
	done chan struct{}
}

// outputPunches bounds the punch requests waiting; past it a request is
// skipped (the next one of the spool covers its range).
const outputPunches = 64

// puncher frees the dropped bytes of spool files until stop is closed.
func puncher(reqs <-chan punchReq, stop <-chan struct{}) {
	for {
		var r punchReq
		select {
		case r = <-reqs:
		case <-stop:
			return
		}
		r.s.punch(r.end)
		if r.done != nil {
			close(r.done)
		}
	}
}

// punch frees s's bytes before end (the puncher's goroutine only).
func (s *fileSpool) punch(end int64) {
	if end <= s.punched {
		return
	}
	rc, err := s.f.SyscallConn()
	if err != nil {
		return
	}
	// Control keeps the descriptor from being closed (and reused) while
	// the punch runs; a closed file fails it instead.
	var perr error
	if rc.Control(func(fd uintptr) { perr = punchHole(fd, s.punched, end-s.punched) }) == nil && perr == nil {
		s.punched = end
	}
}

func (s *fileSpool) write(off int64, p []byte) error {
	_, err := s.f.WriteAt(p, off)
	return err
}

func (s *fileSpool) readAt(p []byte, off int64) (int, error) {
	n, err := s.f.ReadAt(p, off)
	if n == len(p) {
		err = nil
	}
	return n, err
}

func (s *fileSpool) drop(off int64) {
	// Whole blocks only; the part of a block left is freed with the next.
	end := off &^ (outputQuantum - 1)
	if end <= s.requested {
		return
	}
	select {
	case s.punches <- punchReq{s: s, end: end}:
		s.requested = end
	default:
	}
}

func (s *fileSpool) close() {
	_ = s.f.Close()
	_ = os.Remove(s.name)
}

// forgetKey drops key's spool, if any.
func (st *outputStore) forgetKey(key outputKey) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if sp := st.spools[key]; sp != nil {
		st.forgetLocked(sp)
	}
}
