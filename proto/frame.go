package proto

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrFrameTooLong reports a line longer than the reader's bound. The
// connection cannot be resynchronised; the caller should close it.
var ErrFrameTooLong = errors.New("proto: frame exceeds line limit")

// maxEmptyReads is how many (0, nil) reads in a row Reader tolerates before
// reporting io.ErrNoProgress.
const maxEmptyReads = 100

// Reader splits a byte stream into newline-terminated frames. It holds at
// most maxLine+1 bytes at any time, so an over-long line is detected while
// it is being read rather than after it has been accumulated.
type Reader struct {
	r     io.Reader
	max   int
	buf   []byte
	start int   // first unread byte
	scan  int   // bytes in buf[start:scan] hold no newline
	end   int   // end of valid data
	err   error // sticky error from r or ErrFrameTooLong
}

// NewReader returns a Reader over r accepting lines of at most maxLine
// bytes, not counting the newline. A non-positive maxLine means MaxFrame.
func NewReader(r io.Reader, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = MaxFrame
	}
	return &Reader{r: r, max: maxLine}
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
	}
	if r.end == len(r.buf) && r.start > 0 {
		n := copy(r.buf, r.buf[r.start:r.end])
		r.scan -= r.start
		r.start, r.end = 0, n
	}
	if r.end == len(r.buf) {
		limit := r.max + 1
		size := min(max(2*len(r.buf), ReadBufferSize), limit)
		if size <= len(r.buf) {
			// Unreachable: a full buffer of max+1 bytes without a newline
			// is reported as too long before fill is called.
			r.err = ErrFrameTooLong
			return
		}
		nb := make([]byte, size)
		copy(nb, r.buf[r.start:r.end])
		r.scan -= r.start
		r.start, r.end = 0, r.end-r.start
		r.buf = nb
	}
	n, err := r.r.Read(r.buf[r.end:])
	if n < 0 || n > len(r.buf)-r.end {
		r.err = fmt.Errorf("proto: reader returned invalid count %d", n)
		return
	}
	r.end += n
	if err != nil {
		r.err = err
	}
}

// Buffered reports the bytes currently held by the reader's buffer (its
// capacity), which never exceeds maxLine+1.
func (r *Reader) Buffered() int { return len(r.buf) }

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
