package protocol

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// ErrFrameTooLarge is returned (wrapped) by ReadMessage for a frame whose
// Content-Length exceeds MaxFrameBytes; the body has been read past, so
// the next ReadMessage reads the next frame.
var ErrFrameTooLarge = errors.New("frame exceeds the size bound")

// ErrBadHeader is returned (wrapped) for a header block that is not
// `Name: value` lines ending in an empty line with one Content-Length, or
// one longer than MaxHeaderBytes. The rest of the block has been read
// past, so the next ReadMessage reads the next frame.
var ErrBadHeader = errors.New("bad frame header")

// ErrStream is returned (wrapped) when the stream ends or fails inside a
// frame: nothing more can be read.
var ErrStream = errors.New("stream ends inside a frame")

// ErrTooDeep is returned (wrapped) by CheckDepth for JSON nested deeper
// than MaxJSONDepth.
var ErrTooDeep = errors.New("JSON nested too deep")

// Reader reads framed messages from a stream.
type Reader struct {
	r *bufio.Reader
}

// NewReader reads frames from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, headerLineBytes)} }

// headerLineBytes is the longest header line read whole (the reader's
// buffer).
const headerLineBytes = 4096

// ReadMessage reads one frame's body. It returns io.EOF at a clean end of
// the stream; ErrFrameTooLarge (after skipping the body) for an oversized
// frame and ErrBadHeader (after skipping to the header's end) for a
// malformed one, both of which leave the stream at the next frame; and
// ErrStream when the stream ends or fails inside a frame.
func (r *Reader) ReadMessage() ([]byte, error) {
	length := -1
	total := 0
	var bad error
	for first := true; ; first = false {
		line, err := r.r.ReadSlice('\n')
		total += len(line)
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: counted, kept no longer.
			err, line = nil, nil
			if bad == nil {
				bad = fmt.Errorf("%w: a header line longer than %d bytes", ErrBadHeader, headerLineBytes)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) && first && len(line) == 0 {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("%w: %v", ErrStream, err)
		}
		if total > MaxHeaderBytes {
			if bad == nil {
				bad = fmt.Errorf("%w: header longer than %d bytes", ErrBadHeader, MaxHeaderBytes)
			}
			if len(line) > 0 && len(bytes.TrimRight(line, "\r\n")) == 0 {
				return nil, bad
			}
			continue
		}
		if line == nil {
			continue
		}
		text := strings.TrimRight(string(line), "\r\n")
		if text == "" {
			break
		}
		name, val, ok := strings.Cut(text, ":")
		if !ok {
			bad = fmt.Errorf("%w: line %q is not `Name: value`", ErrBadHeader, text)
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(val))
			if err != nil || n < 0 {
				bad = fmt.Errorf("%w: Content-Length %q", ErrBadHeader, strings.TrimSpace(val))
				continue
			}
			length = n
		}
	}
	if bad != nil {
		return nil, bad
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length", ErrBadHeader)
	}
	if length > MaxFrameBytes {
		if _, err := io.CopyN(io.Discard, r.r, int64(length)); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrStream, err)
		}
		return nil, fmt.Errorf("%w: %d bytes, the bound is %d", ErrFrameTooLarge, length, MaxFrameBytes)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r.r, body); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStream, err)
	}
	return body, nil
}

// CheckDepth reports ErrTooDeep when data nests arrays and objects deeper
// than MaxJSONDepth. It scans bytes (strings skipped) and decodes nothing.
func CheckDepth(data []byte) error {
	depth := 0
	inStr, esc := false, false
	for _, c := range data {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			depth++
			if depth > MaxJSONDepth {
				return fmt.Errorf("%w: more than %d levels", ErrTooDeep, MaxJSONDepth)
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}

// Writer writes framed messages; it is safe for concurrent use.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter writes frames to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WriteMessage writes body as one frame.
func (w *Writer) WriteMessage(body []byte) error {
	var b bytes.Buffer
	b.Grow(len(body) + 32)
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	b.Write(body)
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err := w.w.Write(b.Bytes())
	return err
}
