package proto

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrFrameTooLong reports a line longer than the reader's bound. The
// connection cannot be resynchronised; the caller should close it.
var ErrFrameTooLong = errors.New("proto: frame exceeds line limit")

// ErrFrameTimeout reports a frame that was begun but not completed within
// the reader's frame timeout (see Reader.SetFrameTimeout). The partial
// frame is discarded and the error is sticky.
var ErrFrameTimeout = errors.New("proto: frame not completed in time")

// Charge accounts memory that a Reader or an Outbox retains against a
// shared budget. Grow returns an error when the budget refuses n more
// bytes, charging nothing; Shrink returns bytes charged earlier. It must
// be safe for concurrent use.
type Charge interface {
	Grow(n int64) error
	Shrink(n int64)
}

// DeadlineReader is an io.Reader whose reads can be given a deadline, as
// a net.Conn can.
type DeadlineReader interface {
	io.Reader
	SetReadDeadline(t time.Time) error
}

// maxEmptyReads is how many (0, nil) reads in a row Reader tolerates before
// reporting io.ErrNoProgress.
const maxEmptyReads = 100

// Reader splits a byte stream into newline-terminated frames. It holds at
// most maxLine+1 bytes at any time, so an over-long line is detected while
// it is being read rather than after it has been accumulated.
//
// Two optional guards serve a server that many peers share: SetCharge
// charges the buffer beyond ReadBufferSize to a shared budget, and
// SetFrameTimeout bounds how long one frame may take to arrive. A buffer
// grown for a large frame is given back once it has been consumed.
type Reader struct {
	r     io.Reader
	max   int
	buf   []byte
	start int   // first unread byte
	scan  int   // bytes in buf[start:scan] hold no newline
	end   int   // end of valid data
	err   error // sticky error from r or ErrFrameTooLong

	charge  Charge
	charged int64 // bytes of buf charged: len(buf) beyond ReadBufferSize

	dl          DeadlineReader // r, when a frame timeout is set
	timeout     time.Duration
	frameArmed  bool // the partial frame in buf has its deadline set
	deadlineSet bool // a read deadline is set on dl
}

// NewReader returns a Reader over r accepting lines of at most maxLine
// bytes, not counting the newline. A non-positive maxLine means MaxFrame.
func NewReader(r io.Reader, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = MaxFrame
	}
	return &Reader{r: r, max: maxLine}
}

// SetCharge makes the reader charge its buffer beyond ReadBufferSize
// bytes to c. When c refuses to let the buffer grow, ReadFrame returns an
// error wrapping c's (the partial frame is lost, the error is sticky).
// Call it before the first ReadFrame.
func (r *Reader) SetCharge(c Charge) { r.charge = c }

// SetFrameTimeout bounds the time from the first byte of a frame to its
// newline: once a frame has begun, the reader sets a read deadline of d on
// dl (which must be the reader's source) and clears it when no partial
// frame remains. A frame that misses its deadline ends the stream with an
// error wrapping ErrFrameTimeout and the read's timeout error. A
// connection idle between frames has no deadline. Call it before the
// first ReadFrame.
func (r *Reader) SetFrameTimeout(dl DeadlineReader, d time.Duration) {
	r.dl, r.timeout = dl, d
}

// ReadFrame returns the next frame without its newline. Lines holding only
// spaces, tabs and carriage returns are skipped. At io.EOF a final
// unterminated line is returned as a frame, and the following call returns
// io.EOF; after any other read error the partial line is discarded. A line over the bound returns ErrFrameTooLong, as does every
// later call.
//
// The returned slice aliases the reader's buffer and is valid only until
// the next call.
func (r *Reader) ReadFrame() ([]byte, error) {
	empty := 0
	for {
		if i := bytes.IndexByte(r.buf[r.scan:r.end], '\n'); i >= 0 {
			nl := r.scan + i
			line := r.buf[r.start:nl]
			r.start, r.scan = nl+1, nl+1
			r.frameArmed = false // what follows is a new frame
			if isBlank(line) {
				continue
			}
			return line, nil
		}
		r.scan = r.end
		if r.end-r.start > r.max {
			r.err = ErrFrameTooLong
		}
		if r.err != nil {
			if r.err != io.EOF || r.start == r.end {
				r.start, r.scan, r.end = 0, 0, 0
				return nil, r.err
			}
			line := r.buf[r.start:r.end]
			r.start, r.scan = r.end, r.end
			if isBlank(line) {
				continue
			}
			return line, nil
		}
		r.fill()
		if r.err == nil && r.end == r.scan {
			if empty++; empty >= maxEmptyReads {
				r.err = io.ErrNoProgress
			}
		} else {
			empty = 0
		}
	}
}

// fill reads more input, first making room: it drops consumed bytes and
// grows the buffer, never beyond max+1 bytes.
func (r *Reader) fill() {
	if r.start == r.end {
		r.start, r.scan, r.end = 0, 0, 0
		if len(r.buf) > ReadBufferSize {
			r.setBuffer(nil) // the large frame is consumed: give it back
		}
	}
	if r.end == len(r.buf) && r.start > 0 {
		n := copy(r.buf, r.buf[r.start:r.end])
		r.scan -= r.start
		r.start, r.end = 0, n
	}
	if r.end == len(r.buf) {
		limit := r.max + 1
		size := min(max(2*len(r.buf), InitialReadBuffer), limit)
		if size <= len(r.buf) {
			// Unreachable: a full buffer of max+1 bytes without a newline
			// is reported as too long before fill is called.
			r.err = ErrFrameTooLong
			return
		}
		if r.charge != nil {
			if err := r.charge.Grow(chargeable(size) - r.charged); err != nil {
				r.err = fmt.Errorf("proto: read buffer of %d bytes: %w", size, err)
				return
			}
		}
		nb := make([]byte, size)
		copy(nb, r.buf[r.start:r.end])
		r.scan -= r.start
		r.start, r.end = 0, r.end-r.start
		r.setBuffer(nb)
	}
	if err := r.armDeadline(); err != nil {
		r.err = err
		return
	}
	n, err := r.r.Read(r.buf[r.end:])
	if n < 0 || n > len(r.buf)-r.end {
		r.err = fmt.Errorf("proto: reader returned invalid count %d", n)
		return
	}
	r.end += n
	if err != nil {
		var te interface{ Timeout() bool }
		if r.frameArmed && errors.As(err, &te) && te.Timeout() {
			err = fmt.Errorf("%w after %v: %w", ErrFrameTimeout, r.timeout, err)
		}
		r.err = err
	}
}

// setBuffer replaces the buffer, settling the charge: growth was charged
// before the allocation, so only a smaller buffer returns bytes here.
func (r *Reader) setBuffer(nb []byte) {
	r.buf = nb
	if r.charge == nil {
		return
	}
	c := chargeable(len(nb))
	if c < r.charged {
		r.charge.Shrink(r.charged - c)
	}
	r.charged = c
}

// chargeable is the part of a buffer of size bytes that is charged: the
// first ReadBufferSize bytes every connection has are not.
func chargeable(size int) int64 { return int64(max(size-ReadBufferSize, 0)) }

// armDeadline sets the frame deadline when a frame has begun and clears it
// when none has.
func (r *Reader) armDeadline() error {
	if r.timeout <= 0 || r.dl == nil {
		return nil
	}
	partial := r.end > r.start
	switch {
	case partial && !r.frameArmed:
		r.frameArmed, r.deadlineSet = true, true
		return r.dl.SetReadDeadline(time.Now().Add(r.timeout))
	case !partial && r.deadlineSet:
		r.frameArmed, r.deadlineSet = false, false
		return r.dl.SetReadDeadline(time.Time{})
	}
	return nil
}

// Release gives back the reader's buffer and its charge; the reader must
// not be used afterwards.
func (r *Reader) Release() {
	r.setBuffer(nil)
	r.start, r.scan, r.end = 0, 0, 0
	if r.err == nil {
		r.err = io.ErrClosedPipe
	}
}

// Buffered reports the bytes currently held by the reader's buffer (its
// capacity), which never exceeds maxLine+1.
func (r *Reader) Buffered() int { return len(r.buf) }

// Pending reports the bytes read from the source and not yet returned as
// frames: more input is already waiting when it is above zero.
func (r *Reader) Pending() int { return r.end - r.start }

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
