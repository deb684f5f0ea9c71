package host

import (
	"io"
	"os"
	"sync"
)

// capture is the io.Writer one output pipe of a child is copied into. It
// keeps the first max bytes in memory; beyond that, when spillLimit > 0, the
// whole stream (preview included, so the file starts at byte zero) goes to a
// temporary file, up to spillLimit bytes. Everything past the bounds is
// drained and dropped, so the child never blocks on a full pipe. Write never
// fails: a failing tee or spill file degrades to dropping bytes.
//
// When mem is set, the buffer's capacity is charged to it as the buffer
// grows; a growth that does not fit stops buffering (the rest is dropped
// as past the bound) and is reported by Run as the budget's error.
//
// A capture is written by exactly one goroutine (os/exec's copier, or the
// direct path's drain loop, see runDirect) and read only after the child
// has been waited for, so it needs no lock of its own.
type capture struct {
	max        int64
	buf        []byte
	mem        Memory
	charged    int64 // bytes of buf's capacity charged to mem
	memErr     error // the charge that stopped buffering
	tee        io.Writer
	spillDir   string
	spillLimit int64
	file       *os.File
	stored     int64 // bytes written to file
	truncated  bool
	spillDone  bool // spill file full, failed or disabled: drop overflow
}

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.teeWrite(p)
	room := c.max - int64(len(c.buf))
	if c.file == nil && int64(n) <= room {
		c.appendBuf(p)
		return n, nil
	}
	if c.file == nil {
		k := int(max(room, 0))
		c.appendBuf(p[:k])
		p = p[k:]
		c.truncated = true
		if !c.openSpill() {
			return n, nil
		}
	}
	c.writeSpill(p)
	return n, nil
}

// ReadFrom drains r, reading straight into the capture buffer while it
// has room, so os/exec's copier needs no intermediate buffer; once the
// buffer is full it falls back to a scratch buffer and Write.
func (c *capture) ReadFrom(r io.Reader) (int64, error) {
	var total int64
	var scratch []byte
	for {
		var dst []byte
		inBuf := c.file == nil && int64(len(c.buf)) < c.max
		if inBuf && len(c.buf) == cap(c.buf) {
			inBuf = c.grow(1)
		}
		if inBuf {
			dst = c.buf[len(c.buf):cap(c.buf)]
		} else {
			if scratch == nil {
				scratch = make([]byte, 32<<10)
			}
			dst = scratch
		}
		n, err := r.Read(dst)
		if n > 0 {
			total += int64(n)
			if inBuf {
				c.buf = c.buf[:len(c.buf)+n]
				c.teeWrite(dst[:n])
			} else {
				c.Write(dst[:n])
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

func (c *capture) teeWrite(p []byte) {
	if c.tee != nil {
		if _, err := c.tee.Write(p); err != nil {
			c.tee = nil // a broken stream stops streaming, not the child
		}
	}
}

// appendBuf appends p, growing the buffer geometrically but never past
// max; what does not fit a refused growth is dropped.
func (c *capture) appendBuf(p []byte) {
	if len(p) == 0 {
		return
	}
	if len(c.buf)+len(p) > cap(c.buf) && !c.grow(len(p)) {
		p = p[:cap(c.buf)-len(c.buf)]
	}
	c.buf = append(c.buf, p...)
}

// grow makes room for at least n more bytes (n <= max-len), doubling but
// never past max. When mem refuses the larger buffer, the capture keeps
// what it has, stops buffering (max shrinks to the current length) and
// grow reports false.
func (c *capture) grow(n int) bool {
	nc := min(max(2*cap(c.buf), len(c.buf)+n, 512), int(c.max))
	if c.mem != nil {
		if err := c.mem.Charge(int64(nc) - c.charged); err != nil {
			c.memErr = err
			c.max = int64(len(c.buf))
			c.truncated = true
			return false
		}
		c.charged = int64(nc)
	}
	nb := make([]byte, len(c.buf), nc)
	copy(nb, c.buf)
	c.buf = nb
	return true
}

// release returns the buffer's charge: the caller takes the buffer over
// (and accounts for it as a value of its own).
func (c *capture) release() {
	if c.mem != nil && c.charged > 0 {
		c.mem.Release(c.charged)
		c.charged = 0
	}
}

// openSpill creates the spill file and writes the preview into it; it
// reports whether overflow should now go to the file.
func (c *capture) openSpill() bool {
	if c.spillDone || c.spillLimit <= 0 {
		c.spillDone = true
		return false
	}
	f, err := os.CreateTemp(c.spillDir, "shoal-stdout-*")
	if err != nil {
		c.spillDone = true
		return false
	}
	c.file = f
	c.writeSpill(c.buf)
	return c.file != nil
}

func (c *capture) writeSpill(p []byte) {
	if c.spillDone || c.file == nil {
		return
	}
	if left := c.spillLimit - c.stored; int64(len(p)) > left {
		p = p[:left]
		c.spillDone = true
	}
	k, err := c.file.Write(p)
	c.stored += int64(k)
	if err != nil {
		c.dropSpill()
	}
}

// dropSpill abandons a spill file that can no longer be trusted.
func (c *capture) dropSpill() {
	name := c.file.Name()
	c.file.Close()
	os.Remove(name)
	c.file = nil
	c.spillDone = true
}

// finish closes the spill file and returns its path ("" when none).
func (c *capture) finish() string {
	if c.file == nil {
		return ""
	}
	name := c.file.Name()
	if err := c.file.Close(); err != nil {
		os.Remove(name)
		name = ""
	}
	c.file = nil
	return name
}

// discard removes any spill file (error paths).
func (c *capture) discard() {
	if c.file != nil {
		c.dropSpill()
	}
}

// lockedWriter serialises writes from the stdout and stderr copiers to the
// caller's stream writers, which may well be the same terminal.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func tee(w io.Writer, mu *sync.Mutex) io.Writer {
	if w == nil {
		return nil
	}
	return lockedWriter{mu: mu, w: w}
}
