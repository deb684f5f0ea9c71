package kernel

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// checkpointStore keeps the sessions' checkpoints as files in
// <state-dir>/sessions, one per (principal, session), named by a digest of
// the pair and opened through one os.Root made at start. A single writer
// goroutine writes them: put replaces a session's pending checkpoint (so
// a busy session writes its latest state, never a queue of them) and
// wakes the writer, which writes at most once per CheckpointPace; each
// file is written whole under a temporary name and
// renamed over the old one, so a kill leaves the old checkpoint or the new
// one. The pending ones are bounded by the sessions the kernel keeps.
type checkpointStore struct {
	root *os.Root
	log  *slog.Logger

	// wmu is held by the writer while it writes a batch, and by read, so
	// a read sees a checkpoint either pending or written, never between.
	wmu sync.Mutex

	mu      sync.Mutex
	pending map[sessionKey]*checkpointFile // nil: delete the file
	closed  bool
	kick    chan struct{}
	done    chan struct{}
}

// checkpointVersion is the file format's version.
const checkpointVersion = 1

// checkpointFile is a checkpoint as it is stored.
type checkpointFile struct {
	V         int           `json:"v"`
	Principal string        `json:"principal"`
	Session   string        `json:"session"`
	Dir       []byte        `json:"dir"`
	Env       [][]byte      `json:"env"` // null: not kept (past the bound)
	Bindings  []ckptBinding `json:"bindings"`
	Dropped   []string      `json:"dropped"`

	// dir and env are what Dir and Env are made from when the file is
	// written (env nil: not kept).
	dir string
	env []string
}

// stored is f with Dir and Env made from dir and env (a copy when f was
// built by a checkpointer; f itself when it was read from a file).
func (f *checkpointFile) stored() *checkpointFile {
	if f.Dir != nil {
		return f
	}
	cp := *f
	cp.Dir = []byte(f.dir)
	if f.env != nil {
		cp.Env = make([][]byte, len(f.env))
		for i, kv := range f.env {
			cp.Env[i] = []byte(kv)
		}
	}
	return &cp
}

// appendJSON appends f's JSON encoding (what json.Unmarshal reads back
// as a checkpointFile), written by hand so the bindings' wire forms, valid
// JSON already, are copied rather than validated again.
func (f *checkpointFile) appendJSON(b []byte) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(f.V), 10)
	b = append(b, `,"principal":`...)
	b = proto.AppendString(b, f.Principal)
	b = append(b, `,"session":`...)
	b = proto.AppendString(b, f.Session)
	b = append(b, `,"dir":`...)
	b = proto.AppendBase64(b, []byte(f.dir))
	b = append(b, `,"env":`...)
	if f.env == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, kv := range f.env {
			if i > 0 {
				b = append(b, ',')
			}
			b = proto.AppendBase64(b, []byte(kv))
		}
		b = append(b, ']')
	}
	b = append(b, `,"bindings":[`...)
	for i, bd := range f.Bindings {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = proto.AppendString(b, bd.Name)
		if bd.Mutable {
			b = append(b, `,"mutable":true`...)
		}
		b = append(b, `,"value":`...)
		b = append(b, bd.Value...)
		b = append(b, '}')
	}
	b = append(b, `],"dropped":[`...)
	for i, n := range f.Dropped {
		if i > 0 {
			b = append(b, ',')
		}
		b = proto.AppendString(b, n)
	}
	return append(b, "]}"...)
}

// ckptBinding is one kept binding: its value's wire form.
type ckptBinding struct {
	Name    string          `json:"name"`
	Mutable bool            `json:"mutable,omitempty"`
	Value   json.RawMessage `json:"value"`
}

// maxCheckpointFile bounds the file a checkpoint is read from, for a
// session bound of limit bytes: base64 and JSON grow its parts by at most
// a half and a little.
func maxCheckpointFile(limit int64) int64 { return 2*limit + 1<<20 }

func newCheckpointStore(stateDir string, log *slog.Logger) (*checkpointStore, error) {
	dir := filepath.Join(stateDir, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("kernel: session checkpoints: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("kernel: session checkpoints: %w", err)
	}
	c := &checkpointStore{root: root, log: log, pending: map[sessionKey]*checkpointFile{},
		kick: make(chan struct{}, 1), done: make(chan struct{})}
	go c.writer()
	return c, nil
}

// checkpointName is the file of key's checkpoint.
func checkpointName(key sessionKey) string {
	h := sha256.New()
	h.Write([]byte(key.principal))
	h.Write([]byte{0})
	h.Write([]byte(key.name))
	return hex.EncodeToString(h.Sum(nil)[:16]) + ".ckpt"
}

// put makes f key's next checkpoint (nil: delete key's).
func (c *checkpointStore) put(key sessionKey, f *checkpointFile) {
	if f != nil {
		f.Principal, f.Session = key.principal, key.name
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.pending[key] = f
	select {
	case c.kick <- struct{}{}:
	default:
	}
	c.mu.Unlock()
}

// writer writes pending checkpoints until close.
func (c *checkpointStore) writer() {
	defer close(c.done)
	for range c.kick {
		if c.flush() {
			return
		}
		// A session running statements back to back changes its state
		// faster than it is worth writing: what changes meanwhile is
		// coalesced into the next write.
		time.Sleep(CheckpointPace)
	}
}

// flush writes what is pending, reporting whether the store is closed.
func (c *checkpointStore) flush() bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	batch := c.pending
	c.pending = map[sessionKey]*checkpointFile{}
	closed := c.closed
	c.mu.Unlock()
	for key, f := range batch {
		if err := c.write(key, f); err != nil {
			c.log.Warn("session checkpoint not written", "session", key.name, "err", err)
		}
	}
	return closed
}

func (c *checkpointStore) write(key sessionKey, f *checkpointFile) error {
	name := checkpointName(key)
	if f == nil {
		if err := c.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	b := f.appendJSON(make([]byte, 0, 4096))
	tmp := name + ".tmp"
	w, err := c.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = c.root.Remove(tmp)
		return err
	}
	return c.root.Rename(tmp, name)
}

// read returns key's checkpoint, or nil when there is none (or it cannot
// be used: the reason is logged).
func (c *checkpointStore) read(key sessionKey, limit int64) *checkpointFile {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	queued, pending := c.pending[key]
	c.mu.Unlock()
	if pending {
		if queued == nil {
			return nil // a deletion not made yet
		}
		return queued.stored() // not written yet
	}
	fh, err := c.root.Open(checkpointName(key))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.log.Warn("session checkpoint unreadable", "session", key.name, "err", err)
		}
		return nil
	}
	defer fh.Close()
	max := maxCheckpointFile(limit)
	b, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err != nil || int64(len(b)) > max {
		c.log.Warn("session checkpoint unreadable or too long", "session", key.name, "err", err)
		return nil
	}
	var f checkpointFile
	if err := json.Unmarshal(b, &f); err != nil || f.V != checkpointVersion || f.Principal != key.principal || f.Session != key.name {
		c.log.Warn("session checkpoint does not decode", "session", key.name, "err", err)
		return nil
	}
	return &f
}

// close writes what is pending and stops the writer (at shutdown).
func (c *checkpointStore) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	close(c.kick)
	c.mu.Unlock()
	<-c.done
	c.flush()
	_ = c.root.Close()
}
