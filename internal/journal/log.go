package journal

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/shoalgo/shoal/internal/appendmap"
)

// The intent log. A write (Begin, Record, Finish) is committed by one
// append to the log: the row as it will be written, framed and
// checksummed, in one write(2) (shared by the writers that arrive while
// the previous one is under way: groupcommit.go). The applier copies logged writes into
// SQLite in batches, one transaction each, recording in that same
// transaction the log sequence number (LSN) it reached; Open replays
// whatever the log holds beyond it. So a write that returned survives a
// kill -9 of the process as a SQLite commit in WAL mode with
// synchronous=NORMAL does (both are in the kernel's page cache when the
// call returns; neither survives a power loss for certain), while the
// caller pays for one small append instead of a commit that rewrites a
// dozen b-tree pages.
//
// The log is two segment files, <db>-log.0 and <db>-log.1. Appends go to
// the current one; once it passes logSegmentBytes, and every write in the
// other is applied, the other is truncated and becomes current. So a
// segment holds at most logSegmentBytes plus one write beyond what is not
// yet applied, and Open reads at most two segments.
//
// A frame is: length (uint32, little endian) of the payload, CRC-32C of
// the payload (uint32), payload (one logOp, encoded by appendOp). Replay stops at
// the first frame of a segment that is short or fails its checksum: a
// write torn by a crash of the machine, never one that returned whole.

// logOp is one logged write: the insert of a row (Begin, Record) or the
// finish of one (Finish), with every column it sets, resolved (id, head,
// effect mask) so that applying it needs nothing but SQL.
type logOp struct {
	LSN    uint64
	Finish bool
	ID     int64

	// Insert only.
	Kind      string
	Parent    int64
	Session   string
	Principal string
	StartNS   int64
	Cwd       string
	Src       string
	Head      string
	AST       json.RawMessage
	Finished  bool

	// Both.
	Effects json.RawMessage
	// SetEffects (finish): Effects and Mask replace the row's.
	SetEffects bool
	Mask       int64
	Verdict    string
	OK         bool
	Status     *int
	Opaque     bool
	Outputs    json.RawMessage // outputs_json; finish: nil keeps the row's
	FinishNS   int64
	RefN       int64
	Code       string
	Seq        uint64
	TSeq       uint64
	// PSeq and PID follow TSeq in a record with flagOwn; records
	// written before them have neither.
	PSeq uint64
	PID  int64
}

// size is what op holds in memory, for the pending budget.
func (o *logOp) size() int64 {
	return int64(256 + len(o.Session) + len(o.Principal) + len(o.Cwd) + len(o.Src) + len(o.Head) +
		len(o.AST) + len(o.Effects) + len(o.Verdict) + len(o.Outputs) + len(o.Code))
}

// crcTable is made on first use, not at every start of the kernel binary
// (which is also its sandbox trampoline).
var crcTable = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

const frameHeader = 8

// maxFrameBytes bounds one frame's payload on replay: a row is at most its
// source, AST and effects bounds plus small fields (a longer length is a
// torn or foreign frame).
const maxFrameBytes = MaxSrcBytes + MaxASTBytes + MaxEffectsBytes + 1<<20

// intentLog is the two log segments and which one is current.
type intentLog struct {
	path string // <db>-log; segments are path.0 and path.1
	seg  [2]*os.File
	cur  int
	size int64 // bytes in the current segment
	// last is the highest LSN appended to each segment since it was last
	// truncated (0: none).
	last [2]uint64
	// segBytes, when set (SetWALBound), is the size past which the log
	// moves to its other segment, lower than logSegmentBytes.
	segBytes atomic.Int64
	// maps are the segments' mappings where appendmap.Supported (the
	// segments then opened without O_APPEND and appended to at size);
	// nil where a segment could not be mapped, its appends pwrites (see
	// logMapBytes).
	maps [2]*appendmap.Map
}

// logMapBytes is the length of a segment's shared mapping. On Linux an
// append to the log is a copy into the current segment's mapping
// (internal/appendmap), not a write(2): about a twentieth of the kernel's
// CPU for an `exec "1 + 1"` (ext4's buffered write), on the request's path
// before its answer (docs/performance.md, "`exec "1 + 1"`: the
// twenty-third round"). The frames land in the page-cache pages a write(2)
// fills, so a row whose append returned survives a kill -9 as before, and
// replay reads them with read(2) as before, stopping at the zeros the
// segment file is allocated ahead of its frames. A segment holds
// logSegmentBytes and one batch beyond it; an append past the mapping is a
// pwrite at the frames' end.
const logMapBytes = logSegmentBytes + 1<<20

// logMapStep is how far ahead of its frames a mapped segment's file is
// allocated: about 74 rows of `exec "1 + 1"`.
const logMapStep = 32 << 10

// segmentBytes is the size past which the log moves to its other segment.
func (l *intentLog) segmentBytes() int64 {
	if n := l.segBytes.Load(); n > 0 && n < logSegmentBytes {
		return n
	}
	return logSegmentBytes
}

func (l *intentLog) segPath(i int) string { return fmt.Sprintf("%s.%d", l.path, i) }

// openLog opens (creating) the segments of the log at path.
func openLog(path string) (*intentLog, error) {
	l := &intentLog{path: path}
	flags := os.O_CREATE | os.O_RDWR
	if !appendmap.Supported {
		flags |= os.O_APPEND
	}
	for i := range l.seg {
		f, err := os.OpenFile(l.segPath(i), flags, 0o600)
		if err != nil {
			l.close()
			return nil, fmt.Errorf("journal: opening log %s: %w", l.segPath(i), err)
		}
		l.seg[i] = f
		if appendmap.Supported {
			// Unmapped, the segment's appends are pwrites: slower, the
			// same rows.
			l.maps[i], _ = appendmap.New(f, logMapBytes, logMapStep)
		}
	}
	return l, nil
}

func (l *intentLog) close() {
	for i, f := range l.seg {
		l.maps[i].Unmap()
		l.maps[i] = nil
		if f != nil {
			f.Close()
			l.seg[i] = nil
		}
	}
}

// append appends frames to the current segment, at its end.
func (l *intentLog) append(frames []byte) (int, error) {
	f := l.seg[l.cur]
	if !appendmap.Supported {
		return logWrite(f, frames)
	}
	if m := l.maps[l.cur]; m != nil {
		return m.AppendAt(f, frames, l.size)
	}
	return f.WriteAt(frames, l.size)
}

// replay reads both segments and returns their ops with an LSN above
// applied, in LSN order.
func (l *intentLog) replay(applied uint64) ([]*logOp, error) {
	var ops []*logOp
	for i, f := range l.seg {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("journal: reading log %s: %w", l.segPath(i), err)
		}
		r := bufio.NewReaderSize(f, 64<<10)
		var hdr [frameHeader]byte
		for {
			if _, err := io.ReadFull(r, hdr[:]); err != nil {
				break // end, or a torn header
			}
			n := binary.LittleEndian.Uint32(hdr[0:4])
			sum := binary.LittleEndian.Uint32(hdr[4:8])
			if n == 0 || n > maxFrameBytes {
				break // 0: the zeros past a mapped segment's frames
			}
			payload := make([]byte, n)
			if _, err := io.ReadFull(r, payload); err != nil {
				break
			}
			if crc32.Checksum(payload, crcTable()) != sum {
				break
			}
			op, err := decodeOp(payload)
			if err != nil {
				break
			}
			if op.LSN > applied {
				ops = append(ops, op)
			}
		}
	}
	slices.SortFunc(ops, func(a, b *logOp) int {
		switch {
		case a.LSN < b.LSN:
			return -1
		case a.LSN > b.LSN:
			return 1
		}
		return 0
	})
	// Two copies of one LSN cannot happen (a segment is truncated before
	// it is reused), but keep the first if they did.
	ops = slices.CompactFunc(ops, func(a, b *logOp) bool { return a.LSN == b.LSN })
	return ops, nil
}

// reset empties both segments (everything in them is applied).
func (l *intentLog) reset() error {
	for i, f := range l.seg {
		if err := f.Truncate(0); err != nil {
			return fmt.Errorf("journal: truncating log %s: %w", l.segPath(i), err)
		}
		l.maps[i].Truncated(0)
		l.last[i] = 0
	}
	l.cur, l.size = 0, 0
	return nil
}

// appendFrame appends op's frame (header and payload) to buf. A payload
// past maxFrameBytes is ErrBadEntry, with buf as it was.
func appendFrame(buf []byte, op *logOp) ([]byte, error) {
	at := len(buf)
	buf = appendOp(append(buf, make([]byte, frameHeader)...), op)
	payload := buf[at+frameHeader:]
	if len(payload) > maxFrameBytes {
		return buf[:at], fmt.Errorf("%w: row of %d bytes", ErrBadEntry, len(payload))
	}
	binary.LittleEndian.PutUint32(buf[at:at+4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(buf[at+4:at+8], crc32.Checksum(payload, crcTable()))
	return buf, nil
}

// write writes frames (whole frames of the LSNs up to last, in order) to
// the current segment in one write, first moving to the other segment
// when the current one is full and the other is wholly applied (applied
// is the applier's LSN). A segment so holds at most logSegmentBytes plus
// one batch of frames (see groupcommit.go) beyond what is not yet applied.
func (l *intentLog) write(frames []byte, last, applied uint64) error {
	if l.size >= l.segmentBytes() {
		other := 1 - l.cur
		if l.last[other] <= applied {
			if err := l.seg[other].Truncate(0); err != nil {
				return fmt.Errorf("journal: truncating log %s: %w", l.segPath(other), err)
			}
			l.maps[other].Truncated(0)
			l.last[other] = 0
			l.cur, l.size = other, 0
		}
	}
	n, err := l.append(frames)
	if err != nil {
		if n > 0 {
			// A partial frame would end replay of this segment here: put
			// the segment back to where it was, and fail the write.
			if l.seg[l.cur].Truncate(l.size) == nil {
				l.maps[l.cur].Truncated(l.size)
			}
		}
		return fmt.Errorf("journal: appending to log: %w", err)
	}
	l.size += int64(n)
	l.last[l.cur] = last
	return nil
}

// LogBytes is the size of the intent log's two segments on disk.
func (d *DB) LogBytes() int64 {
	var n int64
	for i := range 2 {
		if fi, err := os.Stat(fmt.Sprintf("%s-log.%d", d.path, i)); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// CompactLog applies every logged write and empties both segments of the
// intent log (everything in them is then in SQLite), for a disk budget
// that finds them too large: a segment otherwise keeps up to
// logSegmentBytes of applied writes until the log moves past it.
func (d *DB) CompactLog() error {
	d.fmu.Lock()
	defer d.fmu.Unlock()
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if d.closed {
		return ErrClosed
	}
	if err := d.flushLocked(); err != nil {
		return err
	}
	if err := d.sync(); err != nil {
		return err
	}
	return d.log.reset()
}
