package pty

import (
	"strconv"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// seqClamp bounds the work one escape sequence can ask of the emulator.
// The emulator (github.com/charmbracelet/x/vt v0.1.0 over
// github.com/charmbracelet/ultraviolet) loops on a sequence's numeric
// parameter, or trusts it as a screen coordinate, in these places:
//
//	REP  CSI n b   repeats the last character n times (n prints, each
//	               of which may scroll the whole screen)
//	ECH  CSI n X   fills n cells from the cursor, cell by cell, past the
//	               end of the line
//	CHT  CSI n I   steps to the next tab stop n times, and keeps looping
//	CBT  CSI n Z   at the margin; CBT the same backwards
//	ICH  CSI n @, DCH CSI n P, IL CSI n L, DL CSI n M, SU CSI n S,
//	SD  CSI n T    clip n to the screen themselves, but cost up to a
//	               screen of cell copies each
//	DECSTBM CSI t;b r, DECSLRM CSI l;r s  take b and r unclipped: a margin
//	               past the screen makes the next scroll index rows that
//	               do not exist (a panic) or loop to the margin
//	ED, EL, RIS, alternate screen (CSI ?1047/1049 h/l)  cost a screen
//	               each, whatever their parameters
//	CUU..VPR, CUP, HVP  clamp their coordinates themselves
//	DA, DSR, DECRQM, OSC 10-12  answer the program through a pipe
//	LF, VT, FF, IND, RI  at the bottom margin scroll a screen of
//	               cells each
//
// and its parser keeps up to 4 MiB of an OSC/DCS/APC/PM/SOS string.
//
// The clamp parses the output with the same parser the emulator uses
// (ansi.Parser, so both see the same sequence boundaries, split across
// reads or not) and writes the emulator a normalised stream: printable
// runes and the control characters it acts on as they are; every CSI
// sequence it has a handler for with each count clamped to what the
// screen can use (cols, rows or cols×rows) and every other parameter to
// maxParamValue, REP split into pieces; the ESC sequences it handles; OSC
// 10-12 and 110-112 (colour queries and settings) up to MaxStringBytes.
// REP is clamped to cols×rows and further to its credit (repCredit), so
// a run of REPs asks no more work per byte than a run of line feeds.
// Everything else is dropped, which changes nothing on the screen, since
// the emulator has no handler for it: window operations and page-size
// requests (CSI … t, DECSCPP CSI … $ |, DECSNLS CSI … * |, so a program
// can never resize the emulator), sequences with more than maxCSIParams
// parameters, DCS, APC, PM, SOS, titles, hyperlinks and longer strings.
// A sequence's intermediates are bounded as the parser bounds them: it
// keeps the last one, and the clamp passes that one.
//
// It also estimates each piece's work in cell operations and cuts its
// output into slices of about sliceWork, only where a cut cannot split a
// grapheme cluster, so the feeder renders one slice at a time under the
// screen lock and releases it in between.
type seqClamp struct {
	p          *ansi.Parser
	cols, rows int

	out  []byte // the slice being built
	work int    // its estimated work
	full bool   // the slice has its work: cut before the next safe piece
	stop bool   // the slice is cut: consume no more input

	next  []byte // a piece held for the next slice
	nextW int
	// A held CSI piece is kept as the sequence, to be clamped again for
	// the screen as it is when the next slice begins (a resize may come
	// between two slices); the parameters of the sequence being passed
	// are copied to heldParams when it is held.
	nextCSI    bool
	heldCmd    ansi.Cmd
	heldParams ansi.Params
	curCmd     ansi.Cmd
	curParams  ansi.Params
	rep        int // REP repetitions still to emit
	// repCredit is the work REP may still ask for: it grows with each
	// byte of input by what a line feed may cost and is capped at one
	// whole-screen REP, so REP costs no more per byte than scrolling does.
	repCredit int
}

// Bounds of the sequence clamp.
const (
	// MaxStringBytes bounds an OSC string the emulator is given; longer
	// ones are dropped.
	MaxStringBytes = 4096
	// maxCSIParams bounds a CSI sequence's parameters; one with more is
	// dropped (the parser keeps 32).
	maxCSIParams = 24
	// maxParamValue bounds any parameter that is not a count or a
	// coordinate (the parser's own notional maximum).
	maxParamValue = 65535
	// sliceWork is the estimated work of one slice rendered under the
	// screen lock, and sliceBytes its most bytes. Work is counted in
	// units of about a nanosecond of emulation here (see the costs
	// below); a single sequence that costs more is a slice of its own.
	sliceWork  = 2_000_000
	sliceBytes = 4 << 10

	// Estimated costs, measured on vt v0.1.0 (80×24 and 1000×1000):
	// a character printed, a cell moved by a scroll, a cell set one by
	// one (erase, clear), a cell cleared by a reset or a switch of the
	// alternate screen, a simple sequence, an answer to the program.
	printWork  = 1000
	moveWork   = 40
	setWork    = 350
	resetWork  = 100
	simpleWork = 100
	replyWork  = 20_000
	lineWork   = 150 // a line saved to the scrollback, per cell
)

func newSeqClamp(cols, rows int) *seqClamp {
	c := &seqClamp{cols: cols, rows: rows}
	c.p = ansi.NewParser()
	c.p.SetDataSize(MaxStringBytes + 1)
	c.p.SetHandler(ansi.Handler{
		Print:     c.print,
		Execute:   c.execute,
		HandleCsi: c.csi,
		HandleEsc: c.esc,
		HandleOsc: c.osc,
		// DCS, APC, PM and SOS have no handler: dropped.
	})
	return c
}

// resize makes the clamp's bounds those of a resized screen. What it
// holds for the next slice was clamped for the old size: a held CSI
// sequence is clamped again as the slice begins, the REP still to emit
// here.
func (c *seqClamp) resize(cols, rows int) {
	if cols == c.cols && rows == c.rows {
		return
	}
	c.cols, c.rows = cols, rows
	c.rep = min(c.rep, c.screen())
	c.repCredit = min(c.repCredit, c.screen()*c.printWork())
}

// reset forgets any half-parsed sequence and pending work (output was
// skipped).
func (c *seqClamp) reset() {
	c.p.Reset()
	c.next, c.nextW, c.rep, c.nextCSI = nil, 0, 0, false
}

// pending reports whether output is held for the next slice.
func (c *seqClamp) pending() bool { return len(c.next) > 0 || c.rep > 0 }

// slice consumes a prefix of in and returns the emulator input for it:
// at most about sliceWork of work and sliceBytes bytes, ending where a
// cut is safe. It returns how many bytes of in it consumed; call it again
// while bytes remain or pending reports true. out is reused by the next
// call.
func (c *seqClamp) slice(in []byte) (out []byte, n int) {
	c.out, c.work, c.full, c.stop = c.out[:0], 0, false, false
	if len(c.next) > 0 {
		if c.nextCSI {
			c.next, c.nextW, c.nextCSI = c.next[:0], 0, false
			c.csi(c.heldCmd, c.heldParams) // clamped for the screen as it is now
		} else {
			c.out = append(c.out, c.next...)
			c.work += c.nextW
			c.next, c.nextW = c.next[:0], 0
			c.full = c.work >= sliceWork
		}
	}
	c.emitRep()
	c.stop = c.rep > 0
	for n < len(in) && !c.stop {
		c.repCredit = min(c.repCredit+max(c.scrollWork(), 4*c.printWork()), c.screen()*c.printWork())
		c.p.Advance(in[n])
		n++
		if len(c.out) >= 2*sliceBytes {
			c.stop = true // a long run of non-ASCII text: cut anyway
		}
	}
	return c.out, n
}

// item appends one piece of emulator input of estimated work w. Once the
// slice is full, the next safe piece (anything but a non-ASCII printed
// rune, which might extend the cluster before it) is held for the next
// slice and the slice is cut before it.
func (c *seqClamp) item(b []byte, w int, safe bool) {
	c.itemOf(b, w, safe, false)
}

// itemOf is item; isCSI says b is the CSI sequence curCmd, curParams.
func (c *seqClamp) itemOf(b []byte, w int, safe, isCSI bool) {
	if c.full && safe {
		c.next = append(c.next[:0], b...)
		c.nextW, c.stop, c.nextCSI = w, true, isCSI
		if isCSI {
			c.heldCmd, c.heldParams = c.curCmd, append(c.heldParams[:0], c.curParams...)
		}
		return
	}
	c.out = append(c.out, b...)
	c.work += w
	c.full = c.full || c.work >= sliceWork || len(c.out) >= sliceBytes
}

// printWork is a printed character's work: one cell, and a share of the
// scroll every cols characters cause at the bottom of the screen.
func (c *seqClamp) printWork() int { return printWork + moveWork*c.rows }

// scrollWork is the work of a line feed at the bottom margin: the screen
// moves up a line, and one line is saved to the scrollback.
func (c *seqClamp) scrollWork() int { return moveWork*c.screen() + lineWork*c.cols }

func (c *seqClamp) screen() int { return c.cols * c.rows }

func (c *seqClamp) print(r rune) {
	var buf [utf8.UTFMax]byte
	b := utf8.AppendRune(buf[:0], r)
	c.item(b, c.printWork(), r < utf8.RuneSelf)
}

// execute passes the control characters the emulator acts on.
func (c *seqClamp) execute(b byte) {
	switch b {
	case '\b', '\r', 0x0e, 0x0f, 0x88, 0x8e, 0x8f: // BS CR SO SI HTS SS2 SS3
		c.item([]byte{b}, simpleWork, true)
	case '\t':
		c.item([]byte{b}, simpleWork*c.cols, true)
	case '\n', '\v', '\f', 0x84, 0x8d: // LF VT FF IND RI: may scroll
		c.item([]byte{b}, c.scrollWork(), true)
	}
	// Others (NUL, BEL, CAN, the other C1 controls, a second ESC) have
	// no handler in the emulator.
}

// esc passes the ESC sequences the emulator handles.
func (c *seqClamp) esc(cmd ansi.Cmd) {
	w := simpleWork
	switch inter, final := cmd.Intermediate(), cmd.Final(); {
	case inter == 0 && (final == '=' || final == '>' || final == '7' || final == '8' ||
		final == 'H' || final == 'n' || final == 'o' || final == '|' || final == '}' || final == '~'):
	case inter == 0 && (final == 'D' || final == 'M'): // IND RI: may scroll
		w = c.scrollWork()
	case inter == 0 && final == 'c': // RIS: both screens cleared
		w = 2*resetWork*c.screen() + replyWork
	case (inter == '(' || inter == ')' || inter == '*' || inter == '+') && (final == 'A' || final == 'B' || final == '0'):
	default:
		return
	}
	b := []byte{0x1b}
	if inter := cmd.Intermediate(); inter != 0 {
		b = append(b, inter)
	}
	c.item(append(b, cmd.Final()), w, true)
}

// osc passes the colour OSCs (10-12 set or query, 110-112 reset), the
// only ones the session's emulator acts on, when short.
func (c *seqClamp) osc(cmd int, data []byte) {
	switch cmd {
	case 10, 11, 12, 110, 111, 112:
	default:
		return
	}
	if len(data) > MaxStringBytes {
		return
	}
	b := make([]byte, 0, len(data)+3)
	b = append(b, 0x1b, ']')
	b = append(b, data...)
	c.item(append(b, 0x07), replyWork, true)
}

// csi passes a CSI sequence the emulator handles with its counts clamped
// (see seqClamp).
func (c *seqClamp) csi(cmd ansi.Cmd, params ansi.Params) {
	if len(params) > maxCSIParams {
		return
	}
	W, H, S := c.cols, c.rows, c.screen()
	lim0, lim1 := maxParamValue, maxParamValue
	w := simpleWork
	switch int(cmd) {
	case '@', 'P', 'X': // ICH DCH ECH
		lim0, w = W, setWork*W
	case 'A', 'B', 'E', 'F', 'd', 'e': // CUU CUD CNL CPL VPA VPR
		lim0 = H
	case 'C', 'D', 'G', '`', 'a': // CUF CUB CHA HPA HPR
		lim0 = W
	case 'H', 'f': // CUP HVP
		lim0, lim1 = H, W
	case 'I', 'Z': // CHT CBT
		lim0, w = W, simpleWork*W
	case 'J': // ED 0-3; ED 2 saves the screen to the scrollback first
		if n, _, _ := params.Param(0, 0); n > 3 {
			return
		}
		w = (setWork + lineWork) * S
	case 'K': // EL 0-2
		if n, _, _ := params.Param(0, 0); n > 2 {
			return
		}
		w = setWork * W
	case 'L', 'M', 'S', 'T': // IL DL SU SD
		lim0, w = H, (moveWork+lineWork+setWork)*S
	case 'b': // REP
		n, _, _ := params.Param(0, 1)
		c.rep = min(n, S, c.repCredit/c.printWork())
		c.repCredit -= c.rep * c.printWork()
		if c.full {
			c.stop = c.rep > 0 // all of it in the next slice
			return
		}
		c.emitRep()
		c.stop = c.rep > 0
		return
	case 'g', ansi.Command('?', 0, 'W'): // TBC DECST8C
		w = simpleWork * W
	case 'm': // SGR
		w = simpleWork * (1 + len(params))
	case 'r': // DECSTBM
		lim0, lim1 = H, H
	case 's': // DECSLRM or SCOSC
		lim0, lim1 = W, W
	case 'c', ansi.Command('>', 0, 'c'), 'n', ansi.Command('?', 0, 'n'),
		ansi.Command(0, '$', 'p'), ansi.Command('?', '$', 'p'): // DA1 DA2 DSR DECXCPR DECRQM
		w = replyWork
	case 'h', 'l', ansi.Command('?', 0, 'h'), ansi.Command('?', 0, 'l'): // SM RM
		for _, p := range params {
			switch p.Param(0) {
			case 1047, 1049: // the alternate screen is cleared
				w += resetWork * S
			case 2048: // in-band resize: an answer
				w += replyWork
			default:
				w += simpleWork
			}
		}
	case ansi.Command(0, ' ', 'q'): // DECSCUSR
	default:
		return // no handler: nothing happens, whatever the parameters
	}
	b := make([]byte, 0, 16+8*len(params))
	b = append(b, 0x1b, '[')
	if pre := cmd.Prefix(); pre != 0 {
		b = append(b, pre)
	}
	for i, p := range params {
		if v := p.Param(-1); v >= 0 {
			lim := maxParamValue
			switch i {
			case 0:
				lim = lim0
			case 1:
				lim = lim1
			}
			b = strconv.AppendInt(b, int64(min(v, lim)), 10)
		}
		if i < len(params)-1 {
			if p.HasMore() {
				b = append(b, ':')
			} else {
				b = append(b, ';')
			}
		}
	}
	if inter := cmd.Intermediate(); inter != 0 {
		b = append(b, inter)
	}
	c.curCmd, c.curParams = cmd, params
	c.itemOf(append(b, cmd.Final()), w, true, true)
	c.curParams = nil
}

// emitRep emits the pending repetitions as REP pieces of at most a
// slice's work each, until the slice is full.
func (c *seqClamp) emitRep() {
	per := max(1, sliceWork/c.printWork())
	for c.rep > 0 && !c.full {
		k := min(c.rep, per)
		c.rep -= k
		c.out = strconv.AppendInt(append(c.out, 0x1b, '['), int64(k), 10)
		c.out = append(c.out, 'b')
		c.work += k * c.printWork()
		c.full = c.work >= sliceWork || len(c.out) >= sliceBytes
	}
}
