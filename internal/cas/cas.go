// Package cas is the content-addressed store under <state-dir>/cas/: each
// blob is a file named by the BLAKE3-256 hash of its bytes, written
// atomically, verified on every read, and stored once however often it is
// Put.
//
// The hash is BLAKE3 (256-bit output), written "blake3:<64 lowercase hex>".
// BLAKE3 is what the conformance corpus's content refs name
// (val:blake3:<64 hex>), it is collision-resistant at 256 bits like SHA-256,
// and it is several times faster than SHA-256 in pure Go, which matters
// because every Get re-hashes the whole blob.
//
// Layout: <dir>/<first 2 hex>/<remaining 62 hex>. Writes go to a temporary
// file in the same subdirectory and are renamed into place, so a crash of
// the writing process leaves either the whole blob or none (stray
// temporaries are removed by Sweep).
//
// Durability is the journal's (SQLite in WAL mode with synchronous=NORMAL):
// a blob Put returned survives the death of the process at once (it is in
// the operating system's page cache), and reaches the disk at the next
// Sync, which the kernel calls every few hundred milliseconds and at close
// (one syncfs(2) for every blob written since, rather than two fsyncs on
// the request path of every exec). A power loss between a Put and the
// next Sync can lose or tear a blob; every read re-hashes, so such a blob
// reads as ErrNotFound or ErrCorrupt, never as other bytes.
package cas

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shoalgo/shoal/internal/blake3"
)

// Prefix is the algorithm prefix of every hash this store names.
const Prefix = "blake3:"

// Errors the store returns, wrapped with context; test with errors.Is.
var (
	ErrNotFound = errors.New("cas: blob not found")
	ErrCorrupt  = errors.New("cas: blob does not match its hash")
	ErrBadHash  = errors.New("cas: malformed hash")
	ErrTooLarge = errors.New("cas: blob too large")
	ErrRange    = errors.New("cas: offset or length out of range")
)

const tmpPrefix = ".tmp-"

// Store is a content-addressed store rooted at one directory. It is safe for
// concurrent use.
type Store struct {
	dir string
	// mu orders Put against Sweep: Puts share it, Sweep holds it alone, so a
	// blob being written is never judged unreferenced half-way.
	mu sync.RWMutex
	// dirty is set by a Put whose blob may not have reached the disk yet,
	// and cleared by the Sync that flushes it.
	dirty atomic.Bool
	made  dirsMade  // subdirectories known to exist
	spare spareFile // a temporary file made ahead for the next Put
	small pack      // blobs of at most inline bytes (small.go)
	// inline is the largest blob kept in the pack: SmallBlobBytes (tests
	// set -1 to store every blob as a file).
	inline int
}

// Options narrow the store's bounds below their hard maxima.
type Options struct {
	// SmallBlobs is how many blobs Put keeps in the small-blob pack before
	// it stores small blobs as files (0 or more than MaxSmallBlobs:
	// MaxSmallBlobs). Open still indexes a pack up to MaxSmallBlobs, so a
	// store reopened with a smaller bound loses none of what it holds.
	SmallBlobs int
	// PackBytes is how long Put lets the pack grow, dead records included
	// (0 or more than MaxPackBytes: MaxPackBytes); Open reads up to
	// MaxPackBytes whatever it is.
	PackBytes int64
}

// Open opens (creating if needed) the store rooted at dir, with the
// default bounds.
func Open(dir string) (*Store, error) { return OpenWith(dir, Options{}) }

// OpenWith opens (creating if needed) the store rooted at dir, bounded by o.
func OpenWith(dir string, o Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cas: creating %s: %w", dir, err)
	}
	s := &Store{dir: dir, inline: SmallBlobBytes}
	s.small.maxBlobs, s.small.maxBytes = MaxSmallBlobs, MaxPackBytes
	if o.SmallBlobs > 0 && o.SmallBlobs < MaxSmallBlobs {
		s.small.maxBlobs = o.SmallBlobs
	}
	if o.PackBytes > 0 && o.PackBytes < MaxPackBytes {
		s.small.maxBytes = o.PackBytes
	}
	if err := s.small.open(dir); err != nil {
		return nil, err
	}
	return s, nil
}

// Close closes the small-blob pack; the store is not used after.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.small.close()
}

// Dir is the store's root directory.
func (s *Store) Dir() string { return s.dir }

// Sum returns the hash the store names data by, without storing it.
func Sum(data []byte) string {
	h := blake3.Sum256(data)
	return name(h)
}

// name is the hash string of sum.
func name(sum [32]byte) string { return Prefix + hex.EncodeToString(sum[:]) }

// ParseHash checks that h is "blake3:" followed by 64 lowercase hex digits
// and returns the hex part.
func ParseHash(h string) (string, error) {
	hx, ok := strings.CutPrefix(h, Prefix)
	if !ok || len(hx) != 64 {
		return "", fmt.Errorf("%w: %.80q", ErrBadHash, h)
	}
	for i := 0; i < len(hx); i++ {
		c := hx[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", fmt.Errorf("%w: %.80q", ErrBadHash, h)
		}
	}
	return hx, nil
}

func (s *Store) path(hx string) string {
	return filepath.Join(s.dir, hx[:fanOut], hx[fanOut:])
}

// Put stores data and returns its hash. Putting content already present
// writes nothing new (it refreshes the blob's time, so a Sweep grace covers
// the row about to name it); a present blob that fails verification is
// replaced. A blob of at most SmallBlobBytes goes to the small-blob pack
// (small.go) while it has room, a larger one to a file of its own.
func (s *Store) Put(data []byte) (string, error) {
	if len(data) > MaxBlobBytes {
		return "", fmt.Errorf("%w: %d bytes (max %d)", ErrTooLarge, len(data), MaxBlobBytes)
	}
	sum := blake3.Sum256(data)
	h := name(sum)
	if err := s.putSum(sum, h, data); err != nil {
		return "", err
	}
	return h, nil
}

// putSum stores data, whose hash Put or PutUnless has just computed as
// sum (named h).
func (s *Store) putSum(sum [32]byte, h string, data []byte) error {
	hx := h[len(Prefix):]
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(data) <= s.inline && s.small.put(sum, data) {
		s.dirty.Store(true)
		return nil
	}
	p := s.path(hx)
	if ok, err := verifyFile(p, hx); err == nil && ok {
		now := time.Now()
		_ = os.Chtimes(p, now, now)
		return nil
	}
	if err := s.writeAtomic(filepath.Dir(p), p, data); err != nil {
		return fmt.Errorf("cas: storing %s: %w", h, err)
	}
	s.dirty.Store(true) // after the rename, so the next Sync covers it
	return nil
}

// verifyFile reports whether the file at p exists and hashes to hx.
func verifyFile(p, hx string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	hs := blake3.New(32, nil)
	if _, err := io.Copy(hs, io.LimitReader(f, MaxBlobBytes+1)); err != nil {
		return false, err
	}
	return hex.EncodeToString(hs.Sum(nil)) == hx, nil
}

// dirsMade remembers which of the store's subdirectories Put has made or
// found, by their two hex digits, so that a Put does not stat its
// directory every time.
type dirsMade struct {
	made [1 << (4 * fanOut)]atomic.Bool
}

// index is the slot of subdirectory dir (its last two hex digits), or -1.
func (d *dirsMade) index(dir string) int {
	if len(dir) < fanOut {
		return -1
	}
	v, err := strconv.ParseUint(dir[len(dir)-fanOut:], 16, 8*fanOut)
	if err != nil {
		return -1
	}
	return int(v)
}

func (d *dirsMade) has(dir string) bool {
	i := d.index(dir)
	return i >= 0 && d.made[i].Load()
}

func (d *dirsMade) set(dir string) {
	if i := d.index(dir); i >= 0 {
		d.made[i].Store(true)
	}
}

// Has reports whether a blob with hash h is stored (without verifying it).
func (s *Store) Has(h string) bool {
	hx, err := ParseHash(h)
	if err != nil {
		return false
	}
	if s.small.has(sumOf(hx)) {
		return true
	}
	fi, err := os.Stat(s.path(hx))
	return err == nil && fi.Mode().IsRegular()
}

// Get returns up to n bytes of blob h from offset off, and the blob's total
// length. n <= 0 or n > MaxGetBytes means MaxGetBytes. The whole blob is
// re-hashed on every Get: a file that does not match its name is ErrCorrupt
// and none of it is returned. An offset beyond the end is ErrRange; an
// offset equal to the total returns no bytes.
func (s *Store) Get(h string, off, n int64) ([]byte, int64, error) {
	hx, err := ParseHash(h)
	if err != nil {
		return nil, 0, err
	}
	if off < 0 {
		return nil, 0, fmt.Errorf("%w: offset %d", ErrRange, off)
	}
	if n <= 0 || n > MaxGetBytes {
		n = MaxGetBytes
	}
	data, inPack, perr := s.small.get(sumOf(hx))
	if inPack && perr == nil {
		total := int64(len(data))
		if off > total {
			return nil, total, fmt.Errorf("%w: offset %d beyond length %d", ErrRange, off, total)
		}
		return data[off:min(off+n, total)], total, nil
	}
	f, err := os.Open(s.path(hx))
	if err != nil {
		if perr != nil {
			return nil, 0, perr // in the pack, corrupt, and no file
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, fmt.Errorf("%w: %s", ErrNotFound, h)
		}
		return nil, 0, fmt.Errorf("cas: opening %s: %w", h, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("cas: stat %s: %w", h, err)
	}
	total := fi.Size()
	if total > MaxBlobBytes {
		return nil, 0, fmt.Errorf("%w: %s is %d bytes, larger than any Put", ErrCorrupt, h, total)
	}
	if off > total {
		return nil, total, fmt.Errorf("%w: offset %d beyond length %d", ErrRange, off, total)
	}
	end := min(off+n, total)
	var out bytes.Buffer
	out.Grow(int(end - off))
	hs := blake3.New(32, nil)
	// Hash everything; keep only [off, end).
	r := io.LimitReader(f, total+1)
	buf := make([]byte, 64<<10)
	var pos int64
	for {
		k, rerr := r.Read(buf)
		if k > 0 {
			chunk := buf[:k]
			hs.Write(chunk)
			lo, hi := max(off, pos), min(end, pos+int64(k))
			if lo < hi {
				out.Write(chunk[lo-pos : hi-pos])
			}
			pos += int64(k)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, 0, fmt.Errorf("cas: reading %s: %w", h, rerr)
		}
	}
	if pos != total || hex.EncodeToString(hs.Sum(nil)) != hx {
		return nil, 0, fmt.Errorf("%w: %s", ErrCorrupt, h)
	}
	return out.Bytes(), total, nil
}

// Sweep removes every blob for which referenced returns false, except blobs
// written or re-Put within SweepGrace, and every stale temporary file. It
// never removes a blob referenced reports true for. It returns how many
// blobs it removed.
func (s *Store) Sweep(referenced func(hash string) bool) (int, error) {
	return s.sweep(referenced, time.Now().Add(-SweepGrace))
}

func (s *Store) sweep(referenced func(hash string) bool, cutoff time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	removed := 0
	for _, sum := range s.small.older(cutoff) {
		if referenced(name(sum)) {
			continue
		}
		n, err := s.small.remove(sum)
		if err != nil {
			return removed, fmt.Errorf("cas: sweep: %w", err)
		}
		if n > 0 {
			removed++
		}
	}
	if err := s.small.maybeCompact(s.dir); err != nil {
		return removed, fmt.Errorf("cas: sweep: %w", err)
	}
	subs, err := os.ReadDir(s.dir)
	if err != nil {
		return removed, fmt.Errorf("cas: sweep: %w", err)
	}
	spare := s.spareName()
	for _, sub := range subs {
		if !sub.IsDir() && strings.HasPrefix(sub.Name(), tmpPrefix) {
			// A spare temporary file (writeAtomic) a process left.
			p := filepath.Join(s.dir, sub.Name())
			if info, err := sub.Info(); err == nil && info.Mode().IsRegular() && !info.ModTime().After(cutoff) && p != spare {
				os.Remove(p)
			}
			continue
		}
		if !sub.IsDir() || len(sub.Name()) != fanOut {
			continue
		}
		sd := filepath.Join(s.dir, sub.Name())
		files, err := os.ReadDir(sd)
		if err != nil {
			return removed, fmt.Errorf("cas: sweep: %w", err)
		}
		for _, f := range files {
			info, err := f.Info()
			if err != nil || !info.Mode().IsRegular() || info.ModTime().After(cutoff) {
				continue
			}
			p := filepath.Join(sd, f.Name())
			if strings.HasPrefix(f.Name(), tmpPrefix) {
				os.Remove(p)
				continue
			}
			h := Prefix + sub.Name() + f.Name()
			if _, err := ParseHash(h); err != nil {
				continue // not ours: leave it
			}
			if referenced(h) {
				continue
			}
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return removed, fmt.Errorf("cas: sweep: %w", err)
			}
			removed++
		}
	}
	return removed, nil
}
