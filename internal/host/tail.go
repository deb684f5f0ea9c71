package host

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// tailPoll is how often a tail looks at its file even without a
// notification (renames across directories and some filesystems send
// none).
const tailPoll = 250 * time.Millisecond

// maxTailLine bounds one line a tail delivers: a longer run without a
// newline is delivered in pieces of this size.
const maxTailLine = 1 << 20

// TailItem is one thing a Tail delivers: a complete line (without its
// newline and a trailing CR), or, when Dropped > 0, a marker standing for
// that many lines dropped while the queue was full.
type TailItem struct {
	Line    string
	Dropped int
}

// Tailer is a running tail.
type Tailer interface {
	// Next blocks until the next item, ctx's end or the tail's failure.
	Next(ctx context.Context) (TailItem, error)
	// TryNext returns the next item if one is waiting (ok), without
	// blocking.
	TryNext() (it TailItem, ok bool, err error)
	// Close stops the tail; it is safe to call more than once.
	Close() error
}

// Tail follows complete lines appended to the file at path (fs_read path),
// from its end, or with fromStart from its first byte. A file that shrinks
// or is replaced (rotation) is followed again from its start. It holds at
// most LiveQueue items; lines beyond that are counted and reported, in
// order, by one TailItem with Dropped set.
func (o *OS) Tail(ctx context.Context, path string, fromStart bool) (Tailer, error) {
	f, err := o.openRead(ctx, path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi.IsDir() {
		f.Close()
		return nil, &os.PathError{Op: "tail", Path: path, Err: errors.New("is a directory")}
	}
	release, err := o.takeLive()
	if err != nil {
		f.Close()
		return nil, err
	}
	t := &fsTail{path: path, f: f, fi: fi, release: release, notify: make(chan struct{}, 1), done: make(chan struct{}),
		stat: func() (os.FileInfo, error) { return os.Stat(path) },
		open: func() (*os.File, error) { return os.Open(path) }}
	if o.held() {
		// A rotated file is judged again and opened through a held
		// descriptor like the first: the tail outlives the request that
		// started it, so not that request's cancellation.
		bg := context.WithoutCancel(ctx)
		t.stat = func() (os.FileInfo, error) { return o.heldStat(bg, path, true) }
		t.open = func() (*os.File, error) { return o.openRead(bg, path) }
	}
	if !fromStart {
		if t.off, err = f.Seek(0, io.SeekEnd); err != nil {
			f.Close()
			release()
			return nil, err
		}
	}
	// Notifications on the directory see writes, truncation, creation and
	// renames of the file; the poll covers what they miss.
	if w, err := fsnotify.NewWatcher(); err == nil {
		if w.Add(filepath.Dir(path)) == nil {
			t.w = w
		} else {
			w.Close()
		}
	}
	t.read() // lines already there (fromStart)
	t.release = both(o.trackLive(t), release)
	go t.run()
	return t, nil
}

type fsTail struct {
	path    string
	w       *fsnotify.Watcher // nil: poll only
	release func()            // gives back the host's live slot
	// stat and open look at path again (rotation): by name, or judged
	// and held on a gated host.
	stat func() (os.FileInfo, error)
	open func() (*os.File, error)

	// Owned by the run goroutine (and Tail before it starts).
	f       *os.File
	fi      os.FileInfo
	off     int64
	partial []byte

	mu      sync.Mutex
	queue   []TailItem
	dropped int
	err     error
	notify  chan struct{}

	done      chan struct{}
	closeOnce sync.Once
}

func (t *fsTail) run() {
	tick := time.NewTicker(tailPoll)
	defer tick.Stop()
	defer func() { t.f.Close() }()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if t.w != nil {
		events, errs = t.w.Events, t.w.Errors
	}
	for {
		select {
		case <-t.done:
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if filepath.Clean(ev.Name) != filepath.Clean(t.path) {
				continue
			}
		case _, ok := <-errs:
			if !ok {
				errs = nil
			}
			// A lost notification is caught by the next poll.
			continue
		case <-tick.C:
		}
		t.check()
		t.read()
	}
}

// check reopens the file when it was replaced, and rewinds when it shrank.
func (t *fsTail) check() {
	fi, err := t.stat()
	if err != nil {
		return // gone for now (mid-rotation), or refused: keep the old handle
	}
	if !sameFile(fi, t.fi) {
		if f, err := t.open(); err == nil {
			t.read() // the rest of the old file first
			t.f.Close()
			t.f, t.fi, t.off, t.partial = f, fi, 0, nil
		}
		return
	}
	if fi.Size() < t.off {
		t.off, t.partial = 0, nil // truncated
	}
	t.fi = fi
}

// read delivers the complete lines between the offset and the end.
func (t *fsTail) read() {
	buf := make([]byte, 64<<10)
	for {
		n, err := t.f.ReadAt(buf, t.off)
		if n > 0 {
			t.off += int64(n)
			t.feed(buf[:n])
		}
		if err != nil || n < len(buf) {
			return
		}
		select {
		case <-t.done:
			return
		default:
		}
	}
}

func (t *fsTail) feed(data []byte) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			t.partial = append(t.partial, data...)
			if len(t.partial) >= maxTailLine {
				t.push(string(t.partial[:maxTailLine]))
				t.partial = append(t.partial[:0], t.partial[maxTailLine:]...)
			}
			return
		}
		line := data[:i]
		if len(t.partial) > 0 {
			line = append(t.partial, line...)
			t.partial = t.partial[:0]
		}
		t.push(string(bytes.TrimSuffix(line, []byte{'\r'})))
		data = data[i+1:]
	}
}

func (t *fsTail) push(line string) {
	t.mu.Lock()
	switch {
	case t.dropped > 0 && len(t.queue) <= LiveQueue-2:
		t.queue = append(t.queue, TailItem{Dropped: t.dropped}, TailItem{Line: line})
		t.dropped = 0
	case t.dropped == 0 && len(t.queue) < LiveQueue:
		t.queue = append(t.queue, TailItem{Line: line})
	default:
		t.dropped++
	}
	t.mu.Unlock()
	select {
	case t.notify <- struct{}{}:
	default:
	}
}

func (t *fsTail) TryNext() (TailItem, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case len(t.queue) > 0:
		it := t.queue[0]
		t.queue = t.queue[1:]
		if len(t.queue) == 0 {
			t.queue = nil
		}
		return it, true, nil
	case t.dropped > 0:
		it := TailItem{Dropped: t.dropped}
		t.dropped = 0
		return it, true, nil
	case t.err != nil:
		return TailItem{}, false, t.err
	}
	return TailItem{}, false, nil
}

func (t *fsTail) Next(ctx context.Context) (TailItem, error) {
	return waitLive(ctx, t.notify, t.TryNext)
}

func (t *fsTail) Close() error {
	t.closeOnce.Do(func() {
		close(t.done)
		if t.w != nil {
			t.w.Close()
		}
		t.release()
		t.mu.Lock()
		t.err = errors.New("tail closed")
		t.mu.Unlock()
		select {
		case t.notify <- struct{}{}:
		default:
		}
	})
	return nil
}
