package proto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ErrBadFrame reports a frame handed to Outbox.Send or Writer.WriteRaw that
// is not exactly one newline-terminated line.
var ErrBadFrame = errors.New("proto: frame must be one newline-terminated line")

// EncodeFrame marshals v as compact JSON followed by '\n'. HTML characters
// are not escaped. A frame longer than MaxFrame is refused with
// ErrFrameTooLong, since no peer would accept it.
func EncodeFrame(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeInto(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func encodeInto(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // Encode compacts and appends '\n'
		return fmt.Errorf("proto: encode frame: %w", err)
	}
	if buf.Len()-1 > MaxFrame {
		return fmt.Errorf("proto: encode frame of %d bytes: %w", buf.Len()-1, ErrFrameTooLong)
	}
	return nil
}

// checkFrame reports whether frame is one newline-terminated line.
func checkFrame(frame []byte) error {
	n := len(frame)
	if n < 2 || frame[n-1] != '\n' || bytes.IndexByte(frame[:n-1], '\n') >= 0 {
		return ErrBadFrame
	}
	if n-1 > MaxFrame {
		return ErrFrameTooLong
	}
	return nil
}

// Writer writes whole frames to an io.Writer. It is safe for concurrent
// use: each frame goes out in one Write call under a mutex, so the bytes of
// two frames never interleave. Writer blocks when the peer does not read;
// connections with subscribers should use an Outbox instead.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf bytes.Buffer
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WriteFrame marshals v as compact JSON and writes it with a trailing
// newline in a single Write.
func (w *Writer) WriteFrame(v any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Reset()
	defer w.release()
	if err := encodeInto(&w.buf, v); err != nil {
		return err
	}
	if _, err := w.w.Write(w.buf.Bytes()); err != nil {
		return fmt.Errorf("proto: write frame: %w", err)
	}
	return nil
}

// WriteRaw writes an already encoded frame, which must be one
// newline-terminated line.
func (w *Writer) WriteRaw(frame []byte) error {
	if err := checkFrame(frame); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.w.Write(frame); err != nil {
		return fmt.Errorf("proto: write frame: %w", err)
	}
	return nil
}

// release drops an encode buffer grown by an unusually large frame.
func (w *Writer) release() {
	if w.buf.Cap() > writerRetainLimit {
		w.buf = bytes.Buffer{}
	}
}
