package client

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// TaskOutput reads a task's output (both streams) from offset, at most
// limit bytes (0: the kernel's most, proto.MaxTaskOutputRead).
func (c *Client) TaskOutput(ctx context.Context, task string, offset, limit int64) (*proto.TaskOutputChunk, error) {
	p := proto.TaskOutputParams{Task: &task, Offset: &offset}
	if limit > 0 {
		p.Limit = &limit
	}
	return call[proto.TaskOutputChunk](ctx, c, proto.MethodTaskOutput, p)
}

// ChunkBytes is the bytes a task.output answer carries.
func ChunkBytes(ch *proto.TaskOutputChunk) ([]byte, error) {
	switch {
	case ch.Base64 != nil:
		b, err := base64.StdEncoding.DecodeString(*ch.Base64)
		if err != nil {
			return nil, fmt.Errorf("task.output: bad base64: %w", err)
		}
		return b, nil
	case ch.Text != nil:
		return []byte(*ch.Text), nil
	}
	return nil, nil
}

// TaskOutputReader reads a task's output as an io.Reader: it asks
// task.output from where it got to, follows next, waits while the task
// runs and has printed nothing new, and returns io.EOF once the task has
// ended and all was read. It carries its offset, so it reads on across
// the client's reconnects.
type TaskOutputReader struct {
	c    *Client
	ctx  context.Context
	task string
	next int64
	buf  []byte
	eof  bool
	// Skipped counts the bytes the reader could not read because the
	// kernel no longer retained them (dropped by its retention bounds).
	Skipped int64
	// Wait is how long one wait for new output lasts (task.await's
	// timeout) before asking again; 0 means 250 ms.
	Wait time.Duration
}

// NewTaskOutputReader reads task's output from offset.
func (c *Client) NewTaskOutputReader(ctx context.Context, task string, offset int64) *TaskOutputReader {
	return &TaskOutputReader{c: c, ctx: ctx, task: task, next: offset}
}

// Offset is the offset of the next byte Read returns.
func (r *TaskOutputReader) Offset() int64 { return r.next - int64(len(r.buf)) }

// Read implements io.Reader.
func (r *TaskOutputReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.eof {
			return 0, io.EOF
		}
		ch, err := r.c.TaskOutput(r.ctx, r.task, r.next, 0)
		if err != nil {
			return 0, err
		}
		b, err := ChunkBytes(ch)
		if err != nil {
			return 0, err
		}
		if ch.Offset > r.next {
			r.Skipped += ch.Offset - r.next
		}
		r.buf, r.next, r.eof = b, ch.Next, ch.EOF
		if len(b) == 0 && !ch.EOF {
			wait := r.Wait
			if wait <= 0 {
				wait = 250 * time.Millisecond
			}
			if _, err := r.c.TaskAwait(r.ctx, r.task, wait); err != nil {
				return 0, err
			}
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}
