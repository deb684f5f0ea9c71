package pty

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"golang.org/x/sys/unix"

	"github.com/shoalgo/shoal/proto"
)

// Child is a started program, as Options.Start returns it.
type Child interface {
	// Pid is the program's process id.
	Pid() int
	// Wait waits for the program to exit and reaps it.
	Wait() (syscall.WaitStatus, error)
	// Signal sends sig to the program's whole tree (nothing to a reaped
	// program's reused pid).
	Signal(sig syscall.Signal)
	// Kill ends the program's whole tree with SIGKILL.
	Kill()
}

// Starter starts the program with tty, the terminal's child end, as its
// standard input, output and error and its controlling terminal (Attach
// sets an exec.Cmd up so). Open closes tty once Starter returns.
type Starter func(tty *os.File) (Child, error)

// Attach sets cmd to run on tty: tty is its stdin, stdout and stderr, and
// it starts a session of its own with tty as its controlling terminal,
// so the terminal's keys (Ctrl-C, Ctrl-Z) signal its foreground process
// group and a hang-up reaches it.
func Attach(cmd *exec.Cmd, tty *os.File) {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setctty = true
	cmd.SysProcAttr.Ctty = 0
	cmd.SysProcAttr.Setpgid = false
}

// Exit is how the program ended: an exit status or the signal that
// killed it.
type Exit = proto.PTYExit

// EventKind is what a notification announces.
type EventKind string

const (
	// EventScreen: the screen changed (coalesced, see PushInterval).
	EventScreen EventKind = "screen"
	// EventExit: the program ended; Event.Exit says how.
	EventExit EventKind = "exit"
)

// Event is one notification of Options.Notify.
type Event struct {
	Kind EventKind
	Exit *Exit // EventExit only
}

// Options configure Open.
type Options struct {
	// Cols and Rows are the terminal's size, MinDim..MaxDim; zero means
	// DefaultCols and DefaultRows.
	Cols, Rows int
	// Start starts the program on the terminal.
	Start Starter
	// Notify, when set, is told of screen changes (at most one per
	// PushInterval) and of the program's exit, which is the last
	// notification. It is called on the session's own goroutines, one
	// call at a time, never under the screen's lock, and should not
	// block.
	Notify func(Event)
}

// Errors of a session's methods.
var (
	// ErrSize: cols or rows outside MinDim..MaxDim.
	ErrSize = fmt.Errorf("cols and rows must be %d..%d", MinDim, MaxDim)
	// ErrExited: the program has exited; it reads no more input.
	ErrExited = errors.New("the program has exited")
	// ErrInputBlocked: the program did not read its input within
	// SendTimeout.
	ErrInputBlocked = errors.New("the program is not reading its input")
)

// CheckSize returns ErrSize unless cols and rows are within MinDim..MaxDim.
func CheckSize(cols, rows int) error {
	if cols < MinDim || cols > MaxDim || rows < MinDim || rows > MaxDim {
		return ErrSize
	}
	return nil
}

// Session is one program on one pseudo-terminal. Its methods are safe for
// concurrent use.
type Session struct {
	master *os.File
	child  Child
	pid    int
	notify func(Event)

	// Output read and not yet rendered: the reader appends, the feeder
	// takes (queue, feedLoop).
	pmu      sync.Mutex
	pend     []byte
	skipNext bool         // output was skipped: cancel any half-read sequence
	skipped  int64        // bytes skipped, in all
	clamp    clusterClamp // the feeder's
	seq      *seqClamp    // the feeder's, used under mu (it reads the screen's size)
	wake     chan struct{}
	// The feeder's CPU budget (pace): emulation time it may still spend
	// at once, and when it was last topped up.
	budget     time.Duration
	budgetLast time.Time
	hurry      atomic.Bool // the program is reaped: render only the tail of what is pending

	readerDone chan struct{} // the reader has seen the terminal's end
	feederDone chan struct{} // and the feeder has rendered what it read
	reaped     chan struct{} // the program has been reaped
	exited     chan struct{} // and its exit recorded
	closing    chan struct{} // Close has begun
	closeOnce  sync.Once

	mu        sync.Mutex // guards the emulator and the fields below
	emu       *vt.Emulator
	cols      int
	rows      int
	appCursor bool // DECCKM: the program wants application cursor keys
	scroll    ring
	changed   chan struct{} // closed and replaced at every change
	lastRead  uint64        // the digest of the screen the last Read returned
	readAny   bool          // a Read has returned since open or resize
	exit      *Exit         // once the program has been reaped
	lastBump  time.Time     // the feeder's last wake of waiting Reads

	wmu     sync.Mutex // one writer of the terminal at a time
	replies chan []byte

	nmu      sync.Mutex // held while notifying, so the exit comes last
	exitTold bool

	pushMu     sync.Mutex
	pushQueued bool
	pushLast   time.Time
	pushHash   uint64
	pushAny    bool
}

// Open opens a terminal of the given size, starts the program on it and
// begins draining its output.
func Open(o Options) (*Session, error) {
	cols, rows := o.Cols, o.Rows
	if cols == 0 {
		cols = DefaultCols
	}
	if rows == 0 {
		rows = DefaultRows
	}
	if err := CheckSize(cols, rows); err != nil {
		return nil, err
	}
	if o.Start == nil {
		return nil, errors.New("pty: no Start")
	}
	master, tty, err := openPair()
	if err != nil {
		return nil, err
	}
	if err := setSize(master, cols, rows); err != nil {
		master.Close()
		tty.Close()
		return nil, fmt.Errorf("set terminal size: %w", err)
	}
	child, err := o.Start(tty)
	tty.Close()
	if err != nil {
		master.Close()
		return nil, err
	}
	s := &Session{
		master: master, child: child, pid: child.Pid(), notify: o.Notify,
		wake:       make(chan struct{}, 1),
		readerDone: make(chan struct{}),
		feederDone: make(chan struct{}),
		reaped:     make(chan struct{}),
		exited:     make(chan struct{}),
		closing:    make(chan struct{}),
		cols:       cols, rows: rows,
		changed: make(chan struct{}),
		replies: make(chan []byte, replyQueue),
	}
	s.scroll.init(ScrollbackLines, ScrollbackBytes)
	s.seq = newSeqClamp(cols, rows)
	s.budget, s.budgetLast = EmuBurst, time.Now()
	s.emu = vt.NewEmulator(cols, rows)
	s.emu.SetScrollbackSize(emuScrollback(cols))
	s.emu.SetCallbacks(vt.Callbacks{
		// Called inside emu.Write, under s.mu.
		EnableMode: func(m ansi.Mode) {
			if m == ansi.ModeCursorKeys {
				s.appCursor = true
			}
		},
		DisableMode: func(m ansi.Mode) {
			if m == ansi.ModeCursorKeys {
				s.appCursor = false
			}
		},
	})
	// Hyperlinks (OSC 8) are not kept: each cell would hold its own copy
	// of a URL of up to the parser's 4 MiB. Nor are titles, icon names
	// and working directories (OSC 0, 1, 2, 7), which no read returns.
	for _, cmd := range []int{0, 1, 2, 7, 8} {
		s.emu.RegisterOscHandler(cmd, func([]byte) bool { return true })
	}
	go s.readLoop()
	go s.feedLoop()
	go s.replyLoop()
	go s.writeReplies()
	go s.waitLoop()
	return s, nil
}

// Pid is the program's process id.
func (s *Session) Pid() int { return s.pid }

// Info is a session's summary.
type Info = proto.PTYInfo

// Info returns the session's summary.
func (s *Session) Info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Info{Pid: s.pid, Cols: s.cols, Rows: s.rows, Alive: s.exit == nil}
}

// readLoop reads the terminal until its child end is closed by every
// holder (EIO) or Close closes the master, handing what it reads to the
// feeder without ever waiting for it.
func (s *Session) readLoop() {
	defer close(s.readerDone)
	buf := make([]byte, readChunk)
	for {
		n, err := s.master.Read(buf)
		if n > 0 {
			s.queue(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// queue appends p to the pending output; past PendingBytes the oldest
// half is skipped, up to the next line start when one is near.
func (s *Session) queue(p []byte) {
	s.pmu.Lock()
	s.pend = append(s.pend, p...)
	if over := len(s.pend) - PendingBytes; over > 0 {
		// At least half goes, so that a flood costs each byte O(1) copying.
		cut := max(over, len(s.pend)/2)
		if i := bytes.IndexByte(s.pend[cut:min(len(s.pend), cut+4096)], '\n'); i >= 0 {
			cut += i + 1
		}
		n := copy(s.pend, s.pend[cut:])
		s.pend = s.pend[:n]
		s.skipped += int64(cut)
		s.skipNext = true
	}
	s.pmu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// feedLoop renders pending output until the reader is done and nothing
// is pending, or Close begins.
func (s *Session) feedLoop() {
	defer close(s.feederDone)
	var work []byte
	for {
		for {
			s.pmu.Lock()
			work, s.pend = s.pend, work[:0]
			skip := s.skipNext
			s.skipNext = false
			s.pmu.Unlock()
			if len(work) == 0 {
				break
			}
			if skip {
				s.resetClamps()
				s.render(skipMark)
			}
			for off := 0; off < len(work); {
				select {
				case <-s.closing:
					return
				default:
				}
				if tail := s.tailBytes(); s.hurry.Load() && len(work)-off > tail {
					// The program has ended: only the end of its output
					// can still show.
					cut := len(work) - tail
					if i := bytes.IndexByte(work[cut:], '\n'); i >= 0 {
						cut += i + 1
					}
					s.pmu.Lock()
					s.skipped += int64(cut - off)
					s.pmu.Unlock()
					off = cut
					s.resetClamps()
					s.render(skipMark)
				}
				end := min(len(work), off+feedChunk)
				p := s.clamp.filter(work[off:end])
				off = end
				if !s.emulate(p) {
					return
				}
			}
			if cap(work) > 4*feedChunk {
				work = nil // a flood's buffer is not kept while idle
			}
		}
		select {
		case <-s.readerDone:
			s.pmu.Lock()
			empty := len(s.pend) == 0
			s.pmu.Unlock()
			if empty {
				return
			}
		case <-s.wake:
		case <-s.closing:
			return
		}
	}
}

// resetClamps makes the clamps forget what they hold (output was
// skipped).
func (s *Session) resetClamps() {
	s.clamp.reset()
	s.mu.Lock()
	s.seq.reset()
	s.mu.Unlock()
}

// emulate feeds p to the emulator through the sequence clamp, one slice
// of bounded work at a time: the screen lock is held for one slice and
// released in between, and pace keeps the emulation within its share of
// a core. It reports false when Close began.
func (s *Session) emulate(p []byte) bool {
	for len(p) > 0 || s.seq.pending() {
		select {
		case <-s.closing:
			return false
		case <-s.exited:
			// The exit is reported (ExitDrain passed): what is left
			// is skipped rather than rendered for no one.
			s.pmu.Lock()
			s.skipped += int64(len(p))
			s.pmu.Unlock()
			s.mu.Lock()
			s.seq.reset()
			s.mu.Unlock()
			return true
		default:
		}
		start := time.Now()
		s.mu.Lock()
		s.seq.resize(s.cols, s.rows)
		out, n := s.seq.slice(p)
		if len(out) > 0 {
			_, _ = s.emu.Write(out)
			s.drainScrollbackLocked()
			// A waiting Read recomputes the screen's digest at each
			// wake: wake it at the end, and every bumpEvery meanwhile.
			if (n == len(p) && !s.seq.pending()) || start.Sub(s.lastBump) >= bumpEvery {
				s.bumpLocked()
				s.lastBump = start
			}
		}
		s.mu.Unlock()
		p = p[n:]
		if len(out) > 0 {
			s.schedulePush()
		}
		if !s.pace(time.Since(start)) {
			return false
		}
	}
	return true
}

// pace charges d of emulation to the feeder's budget, which refills at
// EmuShare of the time that passes up to EmuBurst, and waits while it is
// overdrawn: however much work a program's output asks for, its
// emulation uses at most about EmuShare of a core. It reports false when
// Close began.
func (s *Session) pace(d time.Duration) bool {
	if s.hurry.Load() {
		// The program has ended and only the tail of its output is
		// left (at most tailBytes): render it now, so the exit does not
		// wait past ExitDrain and lose the program's last words.
		return true
	}
	now := time.Now()
	s.budget = min(EmuBurst, s.budget+time.Duration(float64(now.Sub(s.budgetLast))*EmuShare)) - d
	s.budgetLast = now
	if s.budget >= 0 {
		return true
	}
	t := time.NewTimer(time.Duration(float64(-s.budget) / EmuShare))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.closing:
		return false
	}
}

// tailBytes is how much of the pending output is rendered once the
// program has been reaped: a few screenfuls (what can still show), at
// least 4 KiB and at most hurryTail.
func (s *Session) tailBytes() int {
	s.mu.Lock()
	cells := s.cols * s.rows
	s.mu.Unlock()
	return min(hurryTail, max(4<<10, 4*cells))
}

// skipMark is rendered where output was skipped: CAN ends whatever
// sequence the skipped output left open, and a new line starts, so what
// follows a line start in the output starts a line on the screen.
var skipMark = []byte("\x18\r\n")

// render feeds p to the emulator and announces the change.
func (s *Session) render(p []byte) {
	s.mu.Lock()
	_, _ = s.emu.Write(p)
	s.drainScrollbackLocked()
	s.bumpLocked()
	s.mu.Unlock()
	s.schedulePush()
}

// emuScrollback is how many scrolled-off lines the emulator keeps until
// the feeder moves them to the text scrollback after each chunk: at most
// ScrollbackLines, and at most emuScrollbackCells cells, since there each
// cell is a full struct, not a byte of text.
func emuScrollback(cols int) int {
	return max(1, min(ScrollbackLines, emuScrollbackCells/cols))
}

// bumpLocked wakes every Read waiting for a change; s.mu is held.
func (s *Session) bumpLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// replyLoop takes the emulator's answers to the program's queries and
// queues them for writeReplies, dropping them when the queue is full: the
// emulator (and so the feeder) never waits on a program that does not
// read its input.
func (s *Session) replyLoop() {
	defer close(s.replies)
	buf := make([]byte, 4096)
	for {
		n, err := s.emu.Read(buf)
		if n > 0 {
			select {
			case s.replies <- append([]byte(nil), buf[:n]...):
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

func (s *Session) writeReplies() {
	for b := range s.replies {
		_, _ = s.write(b)
	}
}

// write writes b to the terminal, waiting at most SendTimeout.
func (s *Session) write(b []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_ = s.master.SetWriteDeadline(time.Now().Add(SendTimeout))
	n, err := s.master.Write(b)
	_ = s.master.SetWriteDeadline(time.Time{})
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return n, ErrInputBlocked
	}
	return n, err
}

// waitLoop reaps the program, lets its last output be rendered (at most
// ExitDrain) and records and announces its exit.
func (s *Session) waitLoop() {
	ws, werr := s.child.Wait()
	close(s.reaped)
	s.hurry.Store(true)
	t := time.NewTimer(ExitDrain)
	select {
	case <-s.feederDone:
	case <-t.C:
	}
	t.Stop()
	exit := exitOf(ws, werr)
	s.mu.Lock()
	s.exit = exit
	s.bumpLocked()
	s.mu.Unlock()
	if s.notify != nil {
		s.nmu.Lock()
		s.exitTold = true
		s.notify(Event{Kind: EventExit, Exit: exit})
		s.nmu.Unlock()
	}
	close(s.exited)
}

func exitOf(ws syscall.WaitStatus, err error) *Exit {
	e := &Exit{}
	switch {
	case err != nil && ws == 0:
		// Not reaped by us (it should not happen): no status to tell.
	case ws.Signaled():
		name := unix.SignalName(ws.Signal())
		if name == "" {
			name = "SIG" + strconv.Itoa(int(ws.Signal()))
		}
		e.Signal = &name
	default:
		code := ws.ExitStatus()
		e.Status = &code
	}
	return e
}

// Send writes input (see Encode) to the terminal and returns the bytes
// written. Refused input (*InputError) writes nothing.
func (s *Session) Send(input json.RawMessage) (int, error) {
	s.mu.Lock()
	app, exited := s.appCursor, s.exit != nil
	s.mu.Unlock()
	b, err := Encode(input, app)
	if err != nil {
		return 0, err
	}
	if exited {
		return 0, ErrExited
	}
	select {
	case <-s.closing:
		return 0, ErrExited
	default:
	}
	if len(b) == 0 {
		return 0, nil
	}
	n, err := s.write(b)
	if err != nil && !errors.Is(err, ErrInputBlocked) {
		select {
		case <-s.reaped:
			return n, ErrExited
		default:
		}
		return n, fmt.Errorf("write to terminal: %w", err)
	}
	return n, err
}

// Resize changes the terminal's size: the emulator's grid and the
// terminal's window size (the program gets SIGWINCH). The next Read
// reports a change.
func (s *Session) Resize(cols, rows int) error {
	if err := CheckSize(cols, rows); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// The clamp bounds what it has not yet passed by the new size (emulate
	// resizes it under mu before each slice).
	s.emu.Resize(cols, rows)
	s.emu.SetScrollbackSize(emuScrollback(cols))
	s.cols, s.rows = cols, rows
	s.readAny = false
	s.bumpLocked()
	return setSize(s.master, cols, rows)
}

// Close ends the session: unless the program has exited it gets SIGHUP
// and SIGTERM (and SIGCONT, should it be stopped), then, after CloseGrace,
// SIGKILL for its whole tree; what is left of its tree is killed even if
// it exited; it is reaped and its exit returned, within CloseGrace plus
// killWait. A program still not reaped by then (stuck in the kernel) has
// an Exit with neither status nor signal; it is reaped when it dies.
// Closing twice returns the same exit.
func (s *Session) Close() Exit {
	s.closeOnce.Do(func() {
		close(s.closing)
		select {
		case <-s.reaped:
		default:
			s.child.Signal(syscall.SIGHUP)
			s.child.Signal(syscall.SIGTERM)
			s.child.Signal(syscall.SIGCONT)
			t := time.NewTimer(CloseGrace)
			select {
			case <-s.reaped:
			case <-t.C:
			}
			t.Stop()
		}
		s.child.Kill()
		t := time.NewTimer(killWait)
		defer t.Stop()
		select {
		case <-s.reaped:
		case <-t.C: // not dead yet (stuck in the kernel): reaped when it dies
		}
		s.master.Close()
		// Ends replyLoop; the emulator's own Close is not safe beside a
		// concurrent Read.
		if c, ok := s.emu.InputPipe().(io.Closer); ok {
			_ = c.Close()
		}
		select {
		case <-s.exited:
		case <-t.C:
		}
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exit == nil {
		return Exit{}
	}
	return *s.exit
}

// Done is closed once the program has exited and its exit is recorded.
func (s *Session) Done() <-chan struct{} { return s.exited }

// schedulePush arranges one screen notification, at least PushInterval
// after the previous one; changes until it runs are coalesced into it.
func (s *Session) schedulePush() {
	if s.notify == nil {
		return
	}
	s.pushMu.Lock()
	defer s.pushMu.Unlock()
	if s.pushQueued {
		return
	}
	s.pushQueued = true
	time.AfterFunc(max(0, time.Until(s.pushLast.Add(PushInterval))), s.push)
}

// push notifies a screen change, unless the screen is what the previous
// notification announced.
func (s *Session) push() {
	s.pushMu.Lock()
	s.pushQueued = false // a change from now on schedules another
	s.pushLast = time.Now()
	s.pushMu.Unlock()
	select {
	case <-s.closing:
		return
	default:
	}
	s.mu.Lock()
	h := s.digestLocked()
	s.mu.Unlock()
	s.pushMu.Lock()
	same := s.pushAny && s.pushHash == h
	s.pushHash, s.pushAny = h, true
	s.pushMu.Unlock()
	if same {
		return
	}
	s.nmu.Lock()
	defer s.nmu.Unlock()
	if !s.exitTold { // the exit is the last notification
		s.notify(Event{Kind: EventScreen})
	}
}

// ReadOptions select what Read returns and whether it waits.
type ReadOptions struct {
	// Scrollback asks for up to this many of the newest lines that
	// scrolled off the screen (at most ScrollbackLines).
	Scrollback int
	// Styles asks for each row's colours and attributes.
	Styles bool
	// Wait, when positive, or UntilChange makes Read wait until the
	// screen differs from what the previous Read returned, the program
	// exits, ctx ends or Wait (DefaultWait when zero, at most MaxWait)
	// passes.
	Wait        time.Duration
	UntilChange bool
}

// DefaultWait is how long a Read with UntilChange and no Wait waits.
const DefaultWait = 5 * time.Second

// Cursor is the cursor's place on the screen (0-based) and whether the
// program hid it.
type Cursor = proto.PTYCursor

// Snapshot is what Read returns.
type Snapshot = proto.PTYSnapshot

// Read returns the screen, waiting first when o asks.
func (s *Session) Read(ctx context.Context, o ReadOptions) Snapshot {
	if o.Wait > 0 || o.UntilChange {
		s.waitChange(ctx, o.Wait)
	}
	s.pmu.Lock()
	skipped := s.skipped
	s.pmu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	rows := s.rowsLocked()
	pos := s.emu.CursorPosition()
	snap := Snapshot{
		Cols: s.cols, Rows: s.rows,
		Cursor:  Cursor{Row: pos.Y, Col: pos.X, Hidden: s.emu.CursorHidden()},
		Screen:  rows,
		Alive:   s.exit == nil,
		Exit:    s.exit,
		Pid:     s.pid,
		Skipped: skipped,
	}
	h := digest(rows, snap.Cursor)
	snap.Changed = !s.readAny || h != s.lastRead
	s.lastRead, s.readAny = h, true
	if o.Scrollback > 0 {
		snap.Scrollback = s.scroll.last(min(o.Scrollback, ScrollbackLines))
		if snap.Scrollback == nil {
			snap.Scrollback = []string{}
		}
	}
	if o.Styles {
		snap.Styles = s.stylesLocked()
	}
	return snap
}

// waitChange waits until the screen differs from what the last Read
// returned, the program has exited, ctx ends or wait passes.
func (s *Session) waitChange(ctx context.Context, wait time.Duration) {
	if wait <= 0 {
		wait = DefaultWait
	}
	wait = min(wait, MaxWait)
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		s.mu.Lock()
		if s.exit != nil || !s.readAny || s.digestLocked() != s.lastRead {
			s.mu.Unlock()
			return
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}
