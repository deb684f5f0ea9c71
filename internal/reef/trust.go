package reef

import (
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/blake3"
)

// Project trust. A directory's project files steer the shell: which
// program a name runs (manifests and lock) and the configuration a
// session sees (.shoal.toml). A repository someone clones brings its own,
// so they count only when the person trusted that directory and the files
// are still the ones trusted: the digest of their names and contents
// (ProjectDigest) must equal the one the person recorded. Reading and
// checking happen together (ReadProject, then Trust.Check on the same
// bytes), and only the bytes checked are parsed, so a file changed after
// the check is never the one used.

// ProjectFiles are the files in a directory whose contents carry
// authority over a session started there, in a fixed order: Reef's
// manifests first, in discovery's order (scope.go relies on it). No
// project-local adapter files exist: command adapters load only from the
// bundled set and the user's own directory.
var ProjectFiles = []string{".reef.toml", "mise.toml", ".mise.toml", ".tool-versions", "reef.lock", ".shoal.toml"}

// LockName is the lock file's name beside its manifest.
const LockName = "reef.lock"

// ProjectFile is one present project file: its name and the BLAKE3 of its
// contents (or a marker for one too large or unreadable).
type ProjectFile struct {
	Name string `json:"name"`
	Sum  string `json:"blake3"`
}

// Project is the project files of one directory as read once: their sums,
// the combined digest, and the contents of those that could be read.
type Project struct {
	Dir    string
	Files  []ProjectFile // in ProjectFiles order
	Digest string
	data   map[string][]byte
}

// Data is the contents read of name, and whether it was present and read.
func (p *Project) Data(name string) ([]byte, bool) {
	if p == nil {
		return nil, false
	}
	b, ok := p.data[name]
	return b, ok
}

// Empty reports whether the directory has no project file.
func (p *Project) Empty() bool { return p == nil || len(p.Files) == 0 }

// Names are the present files' names.
func (p *Project) Names() []string {
	out := make([]string, len(p.Files))
	for i, f := range p.Files {
		out[i] = f.Name
	}
	return out
}

// With is the project as it is once name holds data (what a writer of
// that one file expects to leave behind), digest recomputed.
func (p *Project) With(name string, data []byte) *Project {
	n := &Project{Dir: p.Dir, data: map[string][]byte{}}
	for k, v := range p.data {
		n.data[k] = v
	}
	n.data[name] = data
	have := false
	for _, f := range p.Files {
		if f.Name == name {
			f.Sum, have = fileSum(data), true
		}
		n.Files = append(n.Files, f)
	}
	if !have {
		n.Files = append(n.Files, ProjectFile{Name: name, Sum: fileSum(data)})
		sortProjectFiles(n.Files)
	}
	n.Digest = ProjectDigest(n.Files)
	return n
}

func fileSum(data []byte) string {
	s := blake3.Sum256(data)
	return hex.EncodeToString(s[:])
}

func projectIndex(name string) int {
	for i, n := range ProjectFiles {
		if n == name {
			return i
		}
	}
	return len(ProjectFiles)
}

func sortProjectFiles(fs []ProjectFile) {
	sort.SliceStable(fs, func(i, j int) bool { return projectIndex(fs[i].Name) < projectIndex(fs[j].Name) })
}

// ProjectDigest is the digest of a directory's project files: each
// present file's name and content sum, in ProjectFiles order. Files not
// in ProjectFiles are ignored.
func ProjectDigest(files []ProjectFile) string {
	fs := append([]ProjectFile(nil), files...)
	sortProjectFiles(fs)
	h := blake3.New(32, nil)
	_, _ = h.Write([]byte("shoal-project-v1\n"))
	for _, f := range fs {
		if projectIndex(f.Name) == len(ProjectFiles) {
			continue
		}
		_, _ = fmt.Fprintf(h, "%s\x00%s\n", f.Name, f.Sum)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// EmptyDigest is the digest of a directory with no project file,
// ProjectDigest(nil) (a test holds them equal): a constant, so that no
// start of a binary hashes anything to know it.
const EmptyDigest = "389641a7798c842cd35d62d8cfba4b32567774d91c6645c0bbe9de8af9fd3d1b"

// ReadProject reads dir's project files through fsys. A file larger than
// MaxManifestBytes or unreadable is present with a marker sum (so the
// digest differs from any trusted one) and no data; a name that is not a
// regular file is absent.
func ReadProject(fsys FS, dir string) *Project {
	p := &Project{Dir: filepath.Clean(dir), data: map[string][]byte{}}
	for _, name := range ProjectFiles {
		path := filepath.Join(p.Dir, name)
		fi, err := fsys.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fi.Size() > MaxManifestBytes {
			p.Files = append(p.Files, ProjectFile{Name: name, Sum: fmt.Sprintf("too-large:%d", fi.Size())})
			continue
		}
		data, err := fsys.ReadFile(path)
		if err != nil || len(data) > MaxManifestBytes {
			p.Files = append(p.Files, ProjectFile{Name: name, Sum: "unreadable"})
			continue
		}
		p.data[name] = data
		p.Files = append(p.Files, ProjectFile{Name: name, Sum: fileSum(data)})
	}
	p.Digest = ProjectDigest(p.Files)
	return p
}

// TrustState is what the person's trust store says of a directory.
type TrustState int

const (
	// Untrusted: the directory was never trusted (or was revoked, or the
	// store could not be read).
	Untrusted TrustState = iota
	// Trusted: trusted, and its project files are the ones trusted.
	Trusted
	// Changed: trusted once, but its project files changed since.
	Changed
)

func (s TrustState) String() string {
	switch s {
	case Trusted:
		return "trusted"
	case Changed:
		return "changed"
	}
	return "untrusted"
}

// Trust is the person's decision about project directories.
type Trust interface {
	// Check is the state of dir whose project files digest to digest.
	Check(dir, digest string) TrustState
	// Stamp changes whenever the decisions may have changed (the store
	// was written), so a cache of what Check said can tell it is stale.
	Stamp() string
}

// TrustRecorder is a Trust that can carry a trusted directory over a
// write the person's own shell made to one of its project files.
type TrustRecorder interface {
	Trust
	// Amend records now for now.Dir when the directory is recorded with
	// digest old, or when old is EmptyDigest (the shell created the
	// first project file of a directory that had none); else it refuses.
	Amend(old string, now *Project) error
}

// TrustEverything trusts every directory: for embedders and tests that
// own every directory they evaluate in. The shoal command and the kernel
// use the person's store instead.
var TrustEverything Trust = trustAll{}

type trustAll struct{}

func (trustAll) Check(string, string) TrustState { return Trusted }
func (trustAll) Stamp() string                   { return "all" }

// UntrustedDir is a directory whose project files discovery ignored.
type UntrustedDir struct {
	Dir   string
	State TrustState // Untrusted or Changed
	Names []string   // the project files present
}

// Notice is the one line that tells a person why a directory's files are
// ignored and what to do about it.
func (u UntrustedDir) Notice() string {
	what := "project files"
	for _, n := range u.Names {
		if n != LockName {
			what = "a " + n
			break
		}
	}
	dir := u.Dir
	if !utf8.ValidString(dir) || strings.ContainsFunc(dir, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) {
		dir = strconv.Quote(dir) // a directory's name never moves the cursor
	}
	if u.State == Changed {
		return fmt.Sprintf("shoal: %s: its project files changed since it was trusted; run 'shoal trust' to use them again", dir)
	}
	return fmt.Sprintf("shoal: %s has %s that is not trusted; run 'shoal trust' to use it", dir, what)
}
