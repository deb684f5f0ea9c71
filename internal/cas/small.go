package cas

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/appendmap"
	"github.com/shoalgo/shoal/internal/blake3"
)

// Small blobs (at most SmallBlobBytes) are kept in one append-only pack
// file in the store's root rather than a file each: storing one is a
// single write(2) of a record to the pack, where a blob file costs a
// create, a write, a close and a rename into one of 256 subdirectories
// (most exec outcomes are a few dozen bytes, and each is new: it carries
// the run's pid and duration). A small blob is named, read, verified and
// removed exactly as a file blob is; only where its bytes live differs.
//
// A record is a header (data length, little-endian uint32; the time of
// its Put, unix nanoseconds, little-endian int64; the 32-byte BLAKE3 hash)
// and the data. Removing a blob appends a tombstone, a header of length
// tombstone and no data, so that the removal outlives a reopen. Open
// reads the pack once, re-hashing every record, and keeps an index in
// memory (at most MaxSmallBlobs entries); a record that does not match
// its hash is skipped, and a torn one at the end (a power loss before the
// next Sync) is cut off: their blobs read as not found, as a torn blob
// file does, never as other bytes. Removed records stay in the file as
// dead bytes until the pack is compacted (rewritten with its live records
// and renamed over itself), which Sweep and RemoveUnless do once half the
// pack, or compactDeadBytes of it, is dead.
//
// On Linux a record is appended as a copy into a shared mapping of the
// pack (internal/appendmap), not a write(2): the same page-cache pages,
// so the same durability (Sync's syncfs flushes them), at a fraction of
// the CPU on the request's path of every exec whose value or output is
// new (docs/performance.md, "`exec "1 + 1"`: the twenty-third round"). The
// file is then allocated up to a page ahead of its records, the rest zeros:
// Open's scan ends at a header of zeros, which no record has (a record's
// hash and time are never all zero), and cuts the file there.

const (
	packName    = "small.pack"
	packTmpName = "small.pack.tmp"
	packHeader  = 4 + 8 + 32
	// tombstone is the length field of a record that removes its hash.
	tombstone = ^uint32(0)
	// compactDeadBytes is how many dead bytes make a removal compact the
	// pack however large it is.
	compactDeadBytes = 4 << 20
)

// packLoc is where a small blob's record is, and when it was last Put.
type packLoc struct {
	off int64 // of the record's header
	n   int32 // data length
	at  int64 // unix nanoseconds of its last Put
}

// pack is a store's small-blob pack. mu guards every field and the file's
// offset: Put appends under it, readers pread under it shared.
type pack struct {
	mu   sync.RWMutex
	f    *os.File // nil: no pack (it could not be opened); Puts make files
	size int64    // where the records end: the next record's offset
	// m maps f for appends (nil where it is not mapped: appends are
	// write(2)s, or pwrite(2)s at size where appendmap.Supported, the
	// file then opened without O_APPEND).
	m     *appendmap.Map
	dead  int64 // bytes of records no longer indexed
	index map[[32]byte]packLoc
	// maxBlobs and maxBytes bound what put appends (Options); at most
	// MaxSmallBlobs and MaxPackBytes, which bound what open reads.
	maxBlobs int
	maxBytes int64
}

// openPack opens (creating) the pack in dir and indexes its records. A
// pack that cannot be opened is not an error: small blobs then go to
// files, as large ones do.
func (p *pack) open(dir string) error {
	os.Remove(filepath.Join(dir, packTmpName)) // a compaction a crash cut short
	f, err := os.OpenFile(filepath.Join(dir, packName), os.O_RDWR|os.O_CREATE|packAppend, 0o600)
	if err != nil {
		return fmt.Errorf("cas: opening the small-blob pack: %w", err)
	}
	index, end, dead, err := scanPack(f)
	if err != nil {
		f.Close()
		return fmt.Errorf("cas: reading the small-blob pack: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("cas: the small-blob pack: %w", err)
	}
	if fi.Size() != end {
		// A torn record, or bytes past MaxPackBytes: drop them,
		// so the next record is appended where the readable ones end.
		if err := f.Truncate(end); err != nil {
			f.Close()
			return fmt.Errorf("cas: truncating the small-blob pack: %w", err)
		}
	}
	p.f, p.size, p.dead, p.index = f, end, dead, index
	p.m = p.mapFile(f)
	return nil
}

// packAppend is the pack's open flag for appends: O_APPEND unless the
// pack is appended to at its records' end (appendmap.Supported).
var packAppend = func() int {
	if appendmap.Supported {
		return 0
	}
	return os.O_APPEND
}()

// mapFile maps f for appends, nil when it cannot be (its appends are then
// pwrites).
func (p *pack) mapFile(f *os.File) *appendmap.Map {
	if !appendmap.Supported {
		return nil
	}
	m, err := appendmap.New(f, int(p.maxBytes), int64(os.Getpagesize()))
	if err != nil {
		return nil
	}
	return m
}

// append writes b at the records' end. p.mu is held.
func (p *pack) append(b []byte) (int, error) {
	switch {
	case p.m != nil:
		return p.m.AppendAt(p.f, b, p.size)
	case appendmap.Supported:
		return p.f.WriteAt(b, p.size)
	}
	return p.f.Write(b)
}

// cut cuts a partial append off (the file back to size), or, if it
// cannot, closes the pack (lose). p.mu is held.
func (p *pack) cut() {
	if p.f.Truncate(p.size) != nil {
		p.lose() // no more appends to a pack of unknown length
		return
	}
	p.m.Truncated(p.size)
}

// scanPack reads every record of f from its start, verifying each, and
// returns the index, the offset where the readable records end, and the
// bytes of records that an equal later one superseded.
func scanPack(f *os.File) (map[[32]byte]packLoc, int64, int64, error) {
	index := map[[32]byte]packLoc{}
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, MaxPackBytes), 64<<10)
	var off, dead int64
	var hdr [packHeader]byte
	data := make([]byte, SmallBlobBytes)
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			return nil, 0, 0, err
		}
		if hdr == [packHeader]byte{} {
			break // the zeros a mapped pack is allocated ahead of its records
		}
		n := binary.LittleEndian.Uint32(hdr[0:4])
		if n == tombstone {
			var sum [32]byte
			copy(sum[:], hdr[12:])
			if old, ok := index[sum]; ok {
				delete(index, sum)
				dead += packHeader + int64(old.n)
			}
			dead += packHeader
			off += packHeader
			continue
		}
		if n > SmallBlobBytes {
			break
		}
		if _, err := io.ReadFull(r, data[:n]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			return nil, 0, 0, err
		}
		var sum [32]byte
		copy(sum[:], hdr[12:])
		if blake3.Sum256(data[:n]) != sum {
			// Its bytes changed: skip it (its blob reads as not found). If
			// its length was what changed, what follows no longer parses
			// as records, each fails its hash the same way, and the pack
			// ends where they run out.
			dead += packHeader + int64(n)
			off += packHeader + int64(n)
			continue
		}
		old, dup := index[sum]
		if dup {
			dead += packHeader + int64(old.n)
		} else if len(index) >= MaxSmallBlobs {
			break // not a pack Put wrote: it never indexes more
		}
		index[sum] = packLoc{off: off, n: int32(n), at: int64(binary.LittleEndian.Uint64(hdr[4:12]))}
		off += packHeader + int64(n)
	}
	return index, off, dead, nil
}

// record is the pack record of data, hashed sum, Put at at.
func record(sum [32]byte, data []byte, at int64) []byte {
	rec := make([]byte, packHeader+len(data))
	binary.LittleEndian.PutUint32(rec[0:4], uint32(len(data)))
	binary.LittleEndian.PutUint64(rec[4:12], uint64(at))
	copy(rec[12:packHeader], sum[:])
	copy(rec[packHeader:], data)
	return rec
}

// put stores data (at most SmallBlobBytes), hashed sum, in the pack and
// reports whether it did; false means the caller stores a file (no pack,
// the pack is full, or its write failed). Putting a blob the pack holds
// and verifies refreshes its time, as re-Putting a file does.
func (p *pack) put(sum [32]byte, data []byte) bool {
	now := time.Now().UnixNano()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil {
		return false
	}
	if loc, ok := p.index[sum]; ok {
		if _, err := p.readLocked(sum, loc); err == nil {
			loc.at = now
			p.index[sum] = loc
			return true
		}
		// Corrupt on disk: append a good copy, the old one dead.
		delete(p.index, sum)
		p.dead += packHeader + int64(loc.n)
	}
	rec := record(sum, data, now)
	if len(p.index) >= p.maxBlobs || p.size+int64(len(rec)) > p.maxBytes {
		return false
	}
	if _, err := p.append(rec); err != nil {
		// A partial append would misalign every later record: cut it off.
		p.cut()
		return false
	}
	p.index[sum] = packLoc{off: p.size, n: int32(len(data)), at: now}
	p.size += int64(len(rec))
	return true
}

// get returns the verified bytes of the small blob hashed sum; ok is false
// when the pack does not hold it.
func (p *pack) get(sum [32]byte) (data []byte, ok bool, err error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	loc, ok := p.index[sum]
	if !ok {
		return nil, false, nil
	}
	data, err = p.readLocked(sum, loc)
	return data, true, err
}

// readLocked reads the record at loc and checks it is the blob hashed sum:
// ErrCorrupt if not. p.mu is held (shared or not).
func (p *pack) readLocked(sum [32]byte, loc packLoc) ([]byte, error) {
	rec := make([]byte, packHeader+int(loc.n))
	if _, err := p.f.ReadAt(rec, loc.off); err != nil {
		return nil, fmt.Errorf("%w: %s: reading the pack: %v", ErrCorrupt, Prefix+hex.EncodeToString(sum[:]), err)
	}
	data := rec[packHeader:]
	if binary.LittleEndian.Uint32(rec[0:4]) != uint32(loc.n) || [32]byte(rec[12:packHeader]) != sum || blake3.Sum256(data) != sum {
		return nil, fmt.Errorf("%w: %s", ErrCorrupt, Prefix+hex.EncodeToString(sum[:]))
	}
	return data, nil
}

// has reports whether the pack holds the blob hashed sum.
func (p *pack) has(sum [32]byte) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	_, ok := p.index[sum]
	return ok
}

// older lists the hashes of the small blobs last Put before cutoff.
func (p *pack) older(cutoff time.Time) [][32]byte {
	c := cutoff.UnixNano()
	p.mu.RLock()
	defer p.mu.RUnlock()
	var out [][32]byte
	for sum, loc := range p.index {
		if loc.at <= c {
			out = append(out, sum)
		}
	}
	return out
}

// remove drops the small blob hashed sum, appending its tombstone, and
// returns the bytes its record took (0 when the pack does not hold it).
// Its bytes stay in the file until the next compaction. A tombstone that
// cannot be written is an error: the blob is gone from the index, but a
// reopen would find it again.
func (p *pack) remove(sum [32]byte) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	loc, ok := p.index[sum]
	if !ok {
		return 0, nil
	}
	delete(p.index, sum)
	n := packHeader + int64(loc.n)
	p.dead += n
	var hdr [packHeader]byte
	binary.LittleEndian.PutUint32(hdr[0:4], tombstone)
	binary.LittleEndian.PutUint64(hdr[4:12], uint64(time.Now().UnixNano()))
	copy(hdr[12:], sum[:])
	if _, err := p.append(hdr[:]); err != nil {
		p.cut()
		return n, fmt.Errorf("cas: removing %s from the small-blob pack: %w", name(sum), err)
	}
	p.size += packHeader
	p.dead += packHeader
	return n, nil
}

// usage is how many small blobs the pack holds and the file's length.
func (p *pack) usage() (int64, int64) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return int64(len(p.index)), p.size
}

// maybeCompact rewrites the pack with its live records when half of it,
// or compactDeadBytes, is dead. The caller holds the store's lock alone,
// so no Put runs meanwhile.
func (p *pack) maybeCompact(dir string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil || p.dead == 0 || (p.dead*2 < p.size && p.dead < compactDeadBytes) {
		return nil
	}
	return p.compactLocked(dir)
}

// compactLocked writes the live records, in their order, to a new file,
// flushes it and renames it over the pack: a crash leaves the old pack or
// the new one whole. A record that no longer verifies is left out.
func (p *pack) compactLocked(dir string) error {
	tmpPath := filepath.Join(dir, packTmpName)
	tmp, err := os.OpenFile(tmpPath, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("cas: compacting the small-blob pack: %w", err)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmpPath)
		return fmt.Errorf("cas: compacting the small-blob pack: %w", err)
	}
	type live struct {
		sum [32]byte
		loc packLoc
	}
	recs := make([]live, 0, len(p.index))
	for sum, loc := range p.index {
		recs = append(recs, live{sum, loc})
	}
	slices.SortFunc(recs, func(a, b live) int { return cmp.Compare(a.loc.off, b.loc.off) })
	w := bufio.NewWriterSize(tmp, 64<<10)
	index := make(map[[32]byte]packLoc, len(recs))
	var off int64
	for _, r := range recs {
		data, err := p.readLocked(r.sum, r.loc)
		if err != nil {
			continue // corrupt: dropped, as a corrupt record at open is
		}
		if _, err := w.Write(record(r.sum, data, r.loc.at)); err != nil {
			return fail(err)
		}
		index[r.sum] = packLoc{off: off, n: r.loc.n, at: r.loc.at}
		off += packHeader + int64(r.loc.n)
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmpPath, filepath.Join(dir, packName)); err != nil {
		os.Remove(tmpPath)
		return fmt.Errorf("cas: compacting the small-blob pack: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, packName), os.O_RDWR|packAppend, 0o600)
	if err != nil {
		// The new pack is in place but cannot be opened: no more small
		// blobs are served from it until the store is opened again.
		p.lose()
		return fmt.Errorf("cas: reopening the small-blob pack: %w", err)
	}
	p.m.Unmap()
	p.f.Close()
	p.f, p.index, p.size, p.dead = f, index, off, 0
	p.m = p.mapFile(f)
	return nil
}

// lose closes the pack after a failure that leaves its file's length
// unknown: its blobs are not served and Puts make files until the store
// is opened again (which reads the pack afresh). p.mu is held.
func (p *pack) lose() {
	p.m.Unmap()
	p.f.Close()
	p.f, p.m, p.index, p.size, p.dead = nil, nil, map[[32]byte]packLoc{}, 0, 0
}

// close closes the pack's file.
func (p *pack) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil {
		return nil
	}
	p.m.Unmap()
	err := p.f.Close()
	p.f, p.m = nil, nil
	p.index = map[[32]byte]packLoc{}
	return err
}

// sumOf is the hash hx (64 lowercase hex digits, checked by ParseHash) as
// bytes.
func sumOf(hx string) (sum [32]byte) {
	hex.Decode(sum[:], []byte(hx))
	return sum
}
