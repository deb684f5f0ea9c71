package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// MaxFrame bounds one incoming MCP frame (a line of stdin); a longer one
// is answered -32700 and skipped.
const MaxFrame = 16 << 20

// parseErrorFrame is the answer to a frame that is not JSON: JSON-RPC's
// parse error, with a null id since none could be read.
const parseErrorFrame = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the frame is not valid JSON"}}` + "\n"

// lockedWriter serialises whole frames on the facade's output, so that
// the parse errors it writes never split one of the SDK's frames (the SDK
// writes each frame with one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// checkedInput returns what the SDK reads: in, line by line, without the
// lines that are not JSON, each of which is answered -32700 on out. (The
// SDK itself drops such a line without an answer.)
func checkedInput(in io.ReadCloser, out *lockedWriter) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		var line []byte
		for {
			chunk, err := br.ReadSlice('\n')
			if len(line)+len(chunk) <= MaxFrame {
				line = append(line, chunk...)
			} else {
				line = append(line[:0], '!') // too long: not JSON, whatever follows
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if t := bytes.TrimSpace(line); len(t) > 0 {
				if json.Valid(t) {
					if _, werr := pw.Write(append(t, '\n')); werr != nil {
						in.Close()
						return
					}
				} else {
					_, _ = io.WriteString(out, parseErrorFrame)
				}
			}
			line = line[:0]
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return readCloser{pr, in}
}

// readCloser reads from the checked pipe and closes stdin too.
type readCloser struct {
	*io.PipeReader
	in io.Closer
}

func (r readCloser) Close() error {
	r.PipeReader.Close()
	return r.in.Close()
}
