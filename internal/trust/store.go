package trust

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/shoalgo/shoal/internal/atomicfile"
	"github.com/shoalgo/shoal/internal/reef"
)

// FileName is the store's file name in its directory.
const FileName = "trust.json"

// Path is the store a process with this environment uses:
// $XDG_STATE_HOME/shoal/trust.json, else
// $HOME/.local/state/shoal/trust.json ("" when neither is absolute).
func Path(getenv func(string) string) string {
	if x := getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "shoal", FileName)
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "shoal", FileName)
	}
	return ""
}

// Store is the trust store at one path. It implements reef.Trust and
// reef.TrustRecorder; it rereads the file when its size, modification
// time or inode change. Safe for concurrent use.
type Store struct {
	path string

	mu      sync.Mutex
	stamp   string
	entries map[string]Entry
	err     error
}

// Open is the store at path (which need not exist yet; "" trusts
// nothing and refuses writes).
func Open(path string) *Store { return &Store{path: path} }

// FilePath is the store's file.
func (s *Store) FilePath() string { return s.path }

// stampOf identifies the file's current version without reading it.
func stampOf(path string) string {
	if path == "" {
		return "none"
	}
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "absent"
		}
		return "error:" + err.Error()
	}
	st := fmt.Sprintf("%d/%d/%o", fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st += "/" + strconv.FormatUint(uint64(sys.Ino), 10)
	}
	return st
}

// Stamp changes whenever the file may have changed.
func (s *Store) Stamp() string { return stampOf(s.path) }

// load refreshes the cached entries when the file changed; the caller
// holds mu.
func (s *Store) load() {
	st := stampOf(s.path)
	if st == s.stamp && (s.entries != nil || s.err != nil) {
		return
	}
	s.stamp = st
	s.entries, s.err = nil, nil
	es, err := readStore(s.path)
	if err != nil {
		s.err = fmt.Errorf("trust store %s: %w", s.path, err)
		return
	}
	s.entries = make(map[string]Entry, len(es))
	for _, e := range es {
		s.entries[e.Dir] = e
	}
}

// readStore reads and decodes the file: absent is empty; anything but a
// private regular file of this user is an error.
func readStore(path string) ([]Entry, error) {
	if path == "" {
		return nil, errors.New("no store: neither XDG_STATE_HOME nor HOME is an absolute path")
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("mode %04o: group or others may use it (chmod 600)", fi.Mode().Perm())
	}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return nil, fmt.Errorf("owned by uid %d, not this user", sys.Uid)
	}
	if fi.Size() > MaxStoreBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxStoreBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxStoreBytes+1))
	if err != nil {
		return nil, err
	}
	return Decode(data)
}

// Err is why the store cannot be read (a malformed store trusts nothing);
// nil when it reads, or does not exist yet.
func (s *Store) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	return s.err
}

// Check is reef.Trust: Trusted when dir is recorded with digest, Changed
// when it is recorded with another, Untrusted otherwise (and whenever
// the store is malformed).
func (s *Store) Check(dir, digest string) reef.TrustState {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	e, ok := s.entries[filepath.Clean(dir)]
	switch {
	case !ok:
		return reef.Untrusted
	case e.Digest != digest:
		return reef.Changed
	}
	return reef.Trusted
}

// List is every recorded directory, sorted; an error for a malformed store.
func (s *Store) List() ([]Entry, error) {
	es, err := readStore(s.path)
	if err != nil {
		return nil, fmt.Errorf("trust store %s: %w", s.path, err)
	}
	sortEntries(es)
	return es, nil
}

// Get is dir's entry, if recorded.
func (s *Store) Get(dir string) (Entry, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	if s.err != nil {
		return Entry{}, false, s.err
	}
	e, ok := s.entries[filepath.Clean(dir)]
	return e, ok, nil
}

// Trust records p (its directory, files and digest) as trusted at now,
// replacing any earlier entry for the directory.
func (s *Store) Trust(p *reef.Project, now time.Time) error {
	return s.update(func(m map[string]Entry) error {
		m[p.Dir] = entryOf(p, now)
		return nil
	})
}

// Revoke forgets dir; found is false when it was not recorded.
func (s *Store) Revoke(dir string) (found bool, err error) {
	err = s.update(func(m map[string]Entry) error {
		_, found = m[filepath.Clean(dir)]
		delete(m, filepath.Clean(dir))
		return nil
	})
	return found, err
}

// Amend is reef.TrustRecorder: it records now when now.Dir is recorded
// with old, or when old is reef.EmptyDigest and the directory is not
// recorded (the shell created its first project file); else it refuses.
func (s *Store) Amend(old string, now *reef.Project) error {
	return s.update(func(m map[string]Entry) error {
		e, ok := m[now.Dir]
		switch {
		case ok && e.Digest == old:
		case !ok && old == reef.EmptyDigest:
		default:
			return fmt.Errorf("%s is not trusted as it was before the write", now.Dir)
		}
		m[now.Dir] = entryOf(now, time.Now())
		return nil
	})
}

func entryOf(p *reef.Project, now time.Time) Entry {
	return Entry{Dir: p.Dir, Digest: p.Digest, Files: append([]reef.ProjectFile(nil), p.Files...),
		TrustedAt: now.UTC().Format(time.RFC3339)}
}

// update reads the store strictly, applies fn and writes it back
// atomically. A malformed store is never overwritten: fix or remove it.
func (s *Store) update(fn func(map[string]Entry) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	es, err := readStore(s.path)
	if err != nil {
		return fmt.Errorf("trust store %s: %w (fix or remove it)", s.path, err)
	}
	m := make(map[string]Entry, len(es))
	for _, e := range es {
		m[e.Dir] = e
	}
	if err := fn(m); err != nil {
		return err
	}
	if len(m) > MaxEntries {
		return fmt.Errorf("trust store %s: more than %d directories; revoke some with `shoal trust --revoke DIR`", s.path, MaxEntries)
	}
	out := make([]Entry, 0, len(m))
	for _, e := range m {
		if err := checkEntry(e); err != nil {
			return fmt.Errorf("trust store: %w", err)
		}
		out = append(out, e)
	}
	data, err := Encode(out)
	if err != nil {
		return fmt.Errorf("trust store %s: %w", s.path, err)
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	if err := atomicfile.Write(s.path, data, 0o600); err != nil {
		return fmt.Errorf("trust store %s: %w", s.path, err)
	}
	s.stamp, s.entries, s.err = "", nil, nil
	return nil
}

// osFS reads project files for ReadDir, each bounded.
type osFS struct{}

func (osFS) Stat(p string) (fs.FileInfo, error)      { return os.Stat(p) }
func (osFS) ReadDir(p string) ([]fs.DirEntry, error) { return os.ReadDir(p) }
func (osFS) ReadFile(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, reef.MaxManifestBytes+1))
}

// ReadDir reads dir's project files from the file system (what `shoal
// trust` shows and records, and what the shoal command checks before it
// applies a project .shoal.toml).
func ReadDir(dir string) *reef.Project { return reef.ReadProject(osFS{}, dir) }
