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
	// modification time of each candidate file that exists); equal keys
	// mean the chain can be reused.
	Key string
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

// Candidate files of a discovery, nearest first, without reading them.
type found struct {
	path, format string
	info         fs.FileInfo
}

// stats lists the manifest files that exist from dir up to the root, and
// then the user file, and the key that identifies them.
func stats(fsys FS, dir, userFile string) ([]found, string) {
	var out []found
	var key []byte
	add := func(path, format string) {
		fi, err := fsys.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		out = append(out, found{path, format, fi})
		key = append(append(key, path...), 0)
		key = strconv.AppendInt(key, fi.Size(), 10)
		key = append(key, 0)
		key = strconv.AppendInt(key, fi.ModTime().UnixNano(), 10)
		key = append(key, 0)
	}
	d := filepath.Clean(dir)
	for range MaxScopeDepth {
		for _, m := range manifestNames {
			add(filepath.Join(d, m.name), m.format)
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	if userFile != "" {
		add(userFile, "user")
	}
	return out, string(key)
}

// Discover reads the chain in force at dir: every tools-bearing manifest
// from dir up to the root, nearest first (in one directory: .reef.toml,
// mise.toml, .mise.toml, .tool-versions), then userFile's [reef] table.
// A file that cannot be read or parsed is skipped, as is one with no
// tools; ManifestErrors for the skipped files are returned for `reef
// doctor`.
func Discover(fsys FS, dir, userFile string) (*Chain, []error) {
	files, key := stats(fsys, dir, userFile)
	c := &Chain{Key: key}
	var errs []error
	for _, f := range files {
		if f.info.Size() > MaxManifestBytes {
			errs = append(errs, &ManifestError{Source: f.path, Msg: fmt.Sprintf("larger than %d bytes", MaxManifestBytes)})
			continue
		}
		data, err := fsys.ReadFile(f.path)
		if err != nil {
			errs = append(errs, &ManifestError{Source: f.path, Msg: err.Error()})
			continue
		}
		m, err := parse(f.format, f.path, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(m.Tools) == 0 {
			continue
		}
		kind := ScopeReef
		if f.format == "user" {
			kind = ScopeUser
		}
		c.Scopes = append(c.Scopes, Scope{Kind: kind, Format: f.format, Source: f.path, Manifest: m})
	}
	return c, errs
}

// ChainKey is the key Discover would give the chain at dir, computed
// from file metadata alone, so a caller can tell whether a cached chain
// is still current.
func ChainKey(fsys FS, dir, userFile string) string {
	_, key := stats(fsys, dir, userFile)
	return key
}

// WithOverrides returns the chain with override scopes (innermost first)
// before its own.
func (c *Chain) WithOverrides(over []Scope) *Chain {
	if len(over) == 0 {
		return c
	}
	n := &Chain{Key: c.Key}
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
