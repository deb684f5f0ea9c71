package eval

import (
	"io"
	"sync"
)

// lockedWriter serialises the writes of the goroutines sharing one session
// writer (the on handlers' output, which runs beside the session's own
// statements).
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// sharedOutput is the session's stdout and stderr (Options.Stdout and
// Stderr, discarded when nil) for code that runs in the background yet
// shows its output, each write whole under one session-wide lock.
func (in *Interp) sharedOutput() (stdout, stderr io.Writer) {
	return lockedWriter{&in.outMu, orDiscard(in.opts.Stdout)}, lockedWriter{&in.outMu, orDiscard(in.opts.Stderr)}
}
