package reef

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
)

// FS is the file access Reef needs, supplied by its caller (the
// evaluator's host gate).
type FS interface {
	Stat(path string) (fs.FileInfo, error)
	ReadFile(path string) ([]byte, error)
	ReadDir(path string) ([]fs.DirEntry, error)
}

// StreamFS is an FS that can also read a file of any size in chunks;
// executables are hashed through it when the FS has it (a binary may be
// larger than a whole-file read allows).
type StreamFS interface {
	FS
	ReadEach(path string, fn func([]byte) error) error
}

// Scope kinds, as `which` and `reef` report the winning scope.
const (
	ScopeReef     = "reef"     // a project manifest found walking up
	ScopeUser     = "user"     // the user's shoal.toml [reef] table
	ScopeOverride = "override" // a `with reef:` block
)

// OverrideSource is the source an override scope reports.
const OverrideSource = "<with reef:>"

// Scope is one manifest in a chain.
type Scope struct {
	Kind     string // ScopeReef, ScopeUser or ScopeOverride
	Format   string // "reef", "mise", "tool-versions", "user", "override"
	Source   string // the manifest's path, or OverrideSource
	Manifest *Manifest
}

// Chain is the scopes in force, nearest first.
type Chain struct {
	Scopes []Scope
	// Key identifies the files the chain was read from (path, size and
	// modification time of each candidate file that exists) and the trust
	// store's stamp; equal keys mean the chain can be reused.
	Key string
	// Untrusted are the directories whose manifests were ignored because
	// the person has not trusted them (or they changed since), nearest
	// first.
	Untrusted []UntrustedDir
	// projects are the trusted directories' project files as read and
	// checked, by directory; the user file's directory is here too (the
	// user's own configuration needs no trust).
	projects map[string]*Project
}

// manifestNames are the files discovery looks for in each directory, in
// order.
var manifestNames = []struct{ name, format string }{
	{".reef.toml", "reef"},
	{"mise.toml", "mise"},
	{".mise.toml", "mise"},
	{".tool-versions", "tool-versions"},
}

// parse reads one manifest of a format.
func parse(format, source string, data []byte) (*Manifest, error) {
	switch format {
	case "reef":
		return ParseNative(source, data)
	case "mise":
		return ParseMise(source, data)
	case "tool-versions":
		return ParseToolVersions(source, data)
	case "user":
		return ParseUser(source, data)
	}
	return nil, fmt.Errorf("unknown manifest format %q", format)
}

// found is a directory with at least one manifest, nearest first, before
// anything is read; user marks the user file's directory.
type found struct {
	dir  string
	user bool
}

// stats lists the directories from dir up to the root that hold a
// manifest, then the user file's, and the key that identifies every
// project file there (and the lock beside the user file).
func stats(fsys FS, dir, userFile string) ([]found, string) {
	var out []found
	var key []byte
	add := func(path string) bool {
		fi, err := fsys.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			return false
		}
		key = append(append(key, path...), 0)
		key = strconv.AppendInt(key, fi.Size(), 10)
		key = append(key, 0)
		key = strconv.AppendInt(key, fi.ModTime().UnixNano(), 10)
		key = append(key, 0)
		return true
	}
	d := filepath.Clean(dir)
	for range MaxScopeDepth {
		has := false
		for _, m := range manifestNames {
			has = add(filepath.Join(d, m.name)) || has
		}
		if has {
			// The rest of the directory's project files count towards
			// its digest, so towards the key; elsewhere they do not
			// matter to Reef.
			for _, name := range ProjectFiles[len(manifestNames):] {
				add(filepath.Join(d, name))
			}
			out = append(out, found{dir: d})
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	if userFile != "" && add(userFile) {
		add(filepath.Join(filepath.Dir(userFile), LockName))
		out = append(out, found{dir: filepath.Dir(userFile), user: true})
	}
	return out, string(key)
}

// Discover reads the chain in force at dir: every tools-bearing manifest
// from dir up to the root, nearest first (in one directory: .reef.toml,
// mise.toml, .mise.toml, .tool-versions), then userFile's [reef] table.
// A directory's manifests count only when trust says the directory is
// Trusted with the project files just read; the others are listed in
// Untrusted and nothing of theirs is used. A nil trust trusts nothing
// (only the user file counts). A file that cannot be read or parsed is
// skipped, as is one with no tools; ManifestErrors for the skipped files
// are returned for `reef doctor`.
func Discover(fsys FS, dir, userFile string, trust Trust) (*Chain, []error) {
	dirs, key := stats(fsys, dir, userFile)
	c := &Chain{Key: key + stampOf(trust), projects: map[string]*Project{}}
	var errs []error
	for _, f := range dirs {
		if f.user {
			c.userScope(fsys, userFile, &errs)
			continue
		}
		p := ReadProject(fsys, f.dir)
		state := Untrusted
		if trust != nil {
			state = trust.Check(p.Dir, p.Digest)
		}
		if state != Trusted {
			c.Untrusted = append(c.Untrusted, UntrustedDir{Dir: p.Dir, State: state, Names: p.Names()})
			continue
		}
		c.projects[p.Dir] = p
		for _, m := range manifestNames {
			path := filepath.Join(p.Dir, m.name)
			data, ok := p.Data(m.name)
			if !ok {
				for _, pf := range p.Files {
					if pf.Name == m.name {
						errs = append(errs, &ManifestError{Source: path, Msg: "unreadable or larger than " + strconv.Itoa(MaxManifestBytes) + " bytes"})
					}
				}
				continue
			}
			c.addScope(ScopeReef, m.format, path, data, &errs)
		}
	}
	return c, errs
}

// userScope reads the user's own file and the lock beside it: the
// person's configuration, used without a trust check.
func (c *Chain) userScope(fsys FS, userFile string, errs *[]error) {
	fi, err := fsys.Stat(userFile)
	if err == nil && fi.Size() > MaxManifestBytes {
		*errs = append(*errs, &ManifestError{Source: userFile, Msg: fmt.Sprintf("larger than %d bytes", MaxManifestBytes)})
		return
	}
	data, err := fsys.ReadFile(userFile)
	if err != nil {
		*errs = append(*errs, &ManifestError{Source: userFile, Msg: err.Error()})
		return
	}
	dir := filepath.Dir(userFile)
	p := &Project{Dir: dir, data: map[string][]byte{}}
	lock := filepath.Join(dir, LockName)
	if fi, err := fsys.Stat(lock); err == nil && fi.Mode().IsRegular() && fi.Size() <= MaxManifestBytes {
		if b, err := fsys.ReadFile(lock); err == nil {
			p.data[LockName] = b
		}
	}
	if _, ok := c.projects[dir]; !ok {
		c.projects[dir] = p
	}
	c.addScope(ScopeUser, "user", userFile, data, errs)
}

func (c *Chain) addScope(kind, format, path string, data []byte, errs *[]error) {
	m, err := parse(format, path, data)
	if err != nil {
		*errs = append(*errs, err)
		return
	}
	if len(m.Tools) == 0 {
		return
	}
	c.Scopes = append(c.Scopes, Scope{Kind: kind, Format: format, Source: path, Manifest: m})
}

func stampOf(t Trust) string {
	if t == nil {
		return "\x00none"
	}
	return "\x00" + t.Stamp()
}

// ChainKey is the key Discover would give the chain at dir, computed
// from file metadata and the trust store's stamp alone, so a caller can
// tell whether a cached chain is still current.
func ChainKey(fsys FS, dir, userFile string, trust Trust) string {
	_, key := stats(fsys, dir, userFile)
	return key + stampOf(trust)
}

// Project is the trusted project files of dir as discovery read them
// (nil when dir is not one of the chain's trusted directories).
func (c *Chain) Project(dir string) *Project {
	if c == nil {
		return nil
	}
	return c.projects[filepath.Clean(dir)]
}

// LockData is the lock at path as discovery read and checked it with its
// directory's other project files; ok is false when there is none.
func (c *Chain) LockData(path string) (data []byte, ok bool) {
	if path == "" || filepath.Base(path) != LockName {
		return nil, false
	}
	return c.Project(filepath.Dir(path)).Data(LockName)
}

// LocalRoots are the trusted project directories of the chain: where the
// project-local providers (npm-local, venv) may find a program.
func (c *Chain) LocalRoots() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range c.Scopes {
		if s.Kind != ScopeReef {
			continue
		}
		d := filepath.Dir(s.Source)
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// WithOverrides returns the chain with override scopes (innermost first)
// before its own.
func (c *Chain) WithOverrides(over []Scope) *Chain {
	if len(over) == 0 {
		return c
	}
	n := &Chain{Key: c.Key, Untrusted: c.Untrusted, projects: c.projects}
	n.Scopes = append(append(n.Scopes, over...), c.Scopes...)
	return n
}

// Override makes an override scope from `with reef:` constraints.
func Override(tools map[string]string) Scope {
	m := &Manifest{Runners: map[string]Runner{}}
	for name, c := range tools {
		m.Tools = append(m.Tools, ToolReq{Name: name, Constraint: constraintText(c)})
	}
	sortTools(m.Tools)
	return Scope{Kind: ScopeOverride, Format: "override", Source: OverrideSource, Manifest: m}
}

// Constrained reports whether any scope mentions name.
func (c *Chain) Constrained(name string) bool {
	if c == nil {
		return false
	}
	for _, s := range c.Scopes {
		if _, ok := s.Manifest.Tool(name); ok {
			return true
		}
	}
	return false
}

// Names are the distinct constrained tool names, sorted.
func (c *Chain) Names() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range c.Scopes {
		for _, t := range s.Manifest.Tools {
			if !seen[t.Name] {
				seen[t.Name] = true
				out = append(out, t.Name)
			}
		}
	}
	sortStrings(out)
	return out
}

// Hermetic reports whether any scope asks for a hermetic child PATH.
func (c *Chain) Hermetic() bool {
	for _, s := range c.Scopes {
		if s.Manifest.Hermetic {
			return true
		}
	}
	return false
}

// LockPath is where the chain's lock lives: beside the nearest native
// .reef.toml, else beside the first discovered file; "" when only
// overrides constrain.
func (c *Chain) LockPath() string {
	first := ""
	for _, s := range c.Scopes {
		if s.Kind == ScopeOverride {
			continue
		}
		if s.Format == "reef" {
			return filepath.Join(filepath.Dir(s.Source), "reef.lock")
		}
		if first == "" {
			first = filepath.Join(filepath.Dir(s.Source), "reef.lock")
		}
	}
	return first
}

// Mention is one scope's say about a tool.
type Mention struct {
	Scope      string // kind
	Source     string
	Constraint string
	Provider   string
}

// Decision is the effective requirement for one tool across the chain.
type Decision struct {
	Tool       string
	Constraint Constraint
	Provider   string    // pinned provider, "" for any
	Scope      string    // the nearest mention's kind
	Mentions   []Mention // nearest first
}

// Decide combines every scope's mention of name: the nearest is the base,
// farther compatible ones refine it, and an incompatible constraint or
// provider pin is a reef_conflict naming both sources. ok is false when
// no scope mentions name.
func (c *Chain) Decide(name string) (d Decision, ok bool, err error) {
	d.Tool = name
	var base Mention
	for _, s := range c.Scopes {
		req, has := s.Manifest.Tool(name)
		if !has {
			continue
		}
		m := Mention{Scope: s.Kind, Source: s.Source, Constraint: req.Constraint, Provider: req.Provider}
		d.Mentions = append(d.Mentions, m)
		if !ok {
			ok = true
			base = m
			d.Constraint = ParseConstraint(req.Constraint)
			d.Provider = req.Provider
			d.Scope = s.Kind
			continue
		}
		ref, fine := Refine(d.Constraint, ParseConstraint(req.Constraint))
		if !fine {
			return d, true, &Error{Code: CodeConflict, Tool: name,
				Msg:  fmt.Sprintf("%s: `%s` (%s) conflicts with `%s` (%s)", name, base.Constraint, base.Source, req.Constraint, s.Source),
				Hint: "reconcile the two manifests so their constraints agree"}
		}
		d.Constraint = ref
		if req.Provider != "" {
			switch {
			case d.Provider == "":
				d.Provider = req.Provider
			case d.Provider != req.Provider:
				return d, true, &Error{Code: CodeConflict, Tool: name,
					Msg:  fmt.Sprintf("%s: provider `%s` (%s) conflicts with provider `%s` (%s)", name, d.Provider, base.Source, req.Provider, s.Source),
					Hint: "pin one provider for the tool"}
			}
		}
	}
	return d, ok, nil
}
