package reef

import (
	"encoding/hex"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/blake3"
)

// Policy is what resolution may do when a constrained tool has no valid
// lock entry.
type Policy int

const (
	// Script refuses: reef_unlocked before anything is spawned.
	Script Policy = iota
	// Interactive selects a candidate and records it in the lock.
	Interactive
)

// Prober runs `path --version` (bounded by ProbeTimeout) and returns what
// it printed; the caller runs it through its gate.
type Prober func(path string) ([]byte, error)

// Resolver resolves decisions to executables. One is cheap: make one per
// use with the FS and Prober of the caller's context, sharing a Cache.
type Resolver struct {
	FS    FS
	Probe Prober           // nil: versions are never probed
	Now   func() time.Time // nil: time.Now
	Cache *Cache           // nil: nothing is remembered between calls
}

// Cache keeps executables' digests (by size and modification time) and
// probed versions (by path), at most MaxHashCache of each; the zero value
// is ready and it is safe for concurrent use.
type Cache struct {
	mu       sync.Mutex
	hashes   map[string]hashEntry
	versions map[string]Version
}

func (r *Resolver) cache() *Cache {
	if r.Cache == nil {
		r.Cache = &Cache{}
	}
	return r.Cache
}

type hashEntry struct {
	size  int64
	mtime int64
	sum   string
}

// Binding is a resolved tool: what `which` and `reef` report.
type Binding struct {
	Name       string
	Constraint string
	Version    string // "unknown" when nothing knows it
	Path       string
	Hash       string // full lowercase BLAKE3 hex
	Provider   string
	Scope      string    // the winning scope's kind
	Mentions   []Mention // nearest first
	Locked     bool      // a new lock entry was recorded
}

// Hash8 is the digest's first eight hex digits.
func (b Binding) Hash8() string {
	if len(b.Hash) < 8 {
		return b.Hash
	}
	return b.Hash[:8]
}

// Hash is the BLAKE3 digest of the file at path, cached by size and
// modification time.
func (r *Resolver) Hash(path string) (string, error) {
	fi, err := r.FS.Stat(path)
	if err != nil {
		return "", err
	}
	key := hashEntry{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	c := r.cache()
	c.mu.Lock()
	if h, ok := c.hashes[path]; ok && h.size == key.size && h.mtime == key.mtime {
		c.mu.Unlock()
		return h.sum, nil
	}
	c.mu.Unlock()
	if sfs, ok := r.FS.(StreamFS); ok {
		h := blake3.New(32, nil)
		if err := sfs.ReadEach(path, func(b []byte) error { _, err := h.Write(b); return err }); err != nil {
			return "", err
		}
		key.sum = hex.EncodeToString(h.Sum(nil))
	} else {
		data, err := r.FS.ReadFile(path)
		if err != nil {
			return "", err
		}
		sum := blake3.Sum256(data)
		key.sum = hex.EncodeToString(sum[:])
	}
	c.mu.Lock()
	if c.hashes == nil || len(c.hashes) >= MaxHashCache {
		c.hashes = map[string]hashEntry{}
	}
	c.hashes[path] = key
	c.mu.Unlock()
	return key.sum, nil
}

// probe fills an unknown version by running the program, cached by path.
func (r *Resolver) probe(path string) Version {
	if r.Probe == nil {
		return Unknown
	}
	c := r.cache()
	c.mu.Lock()
	v, ok := c.versions[path]
	c.mu.Unlock()
	if ok {
		return v
	}
	out, err := r.Probe(path)
	v = Unknown
	if err == nil {
		v = VersionFromOutput(out)
	}
	c.mu.Lock()
	if c.versions == nil || len(c.versions) >= MaxHashCache {
		c.versions = map[string]Version{}
	}
	c.versions[path] = v
	c.mu.Unlock()
	return v
}

func (r *Resolver) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Resolve binds a decision: a valid lock entry whose file still has its
// recorded digest; else (Interactive, or refresh) the best satisfying
// candidate of the allowed providers, recorded in lock; else
// reef_unlocked (Script). lock may be nil for a decision nothing records.
func (r *Resolver) Resolve(d Decision, env Env, lock *Lock, pol Policy, refresh bool) (Binding, error) {
	b := Binding{Name: d.Tool, Constraint: d.Constraint.String(), Scope: d.Scope, Mentions: d.Mentions}
	if lock != nil && refresh {
		delete(lock.Entries, d.Tool)
	}
	if lock != nil {
		if e, ok := lock.Entries[d.Tool]; ok && (d.Provider == "" || d.Provider == e.Provider) &&
			d.Constraint.Satisfied(ParseVersion(e.Version)) {
			if err := CheckEntry(env, lock.Dir, d.Tool, e); err != nil {
				return b, err
			}
			sum, err := r.Hash(e.Path)
			if err != nil {
				return b, &Error{Code: CodeNotFound, Tool: d.Tool,
					Msg:  fmt.Sprintf("%s: locked binary %s is unreadable: %s", d.Tool, e.Path, errText(err)),
					Hint: "run `reef lock --refresh`"}
			}
			if sum != e.Blake3 {
				return b, &Error{Code: CodeDrift, Tool: d.Tool,
					Msg:  fmt.Sprintf("%s: on-disk hash %s != locked %s", d.Tool, short(sum), short(e.Blake3)),
					Hint: "run `reef lock --refresh`"}
			}
			b.Version, b.Path, b.Hash, b.Provider = versionText(e.Version), e.Path, sum, e.Provider
			return b, nil
		}
	}
	if pol == Script && !refresh {
		return b, &Error{Code: CodeUnlocked, Tool: d.Tool,
			Msg:  fmt.Sprintf("%s is constrained to `%s` but has no lock entry that satisfies it", d.Tool, d.Constraint),
			Hint: "run `reef lock` interactively and commit reef.lock"}
	}
	c, err := r.Select(d, env)
	if err != nil {
		return b, err
	}
	sum, err := r.Hash(c.Path)
	if err != nil {
		return b, &Error{Code: CodeProvider, Tool: d.Tool, Msg: fmt.Sprintf("%s: hashing %s: %s", d.Tool, c.Path, errText(err))}
	}
	b.Version, b.Path, b.Hash, b.Provider = c.Version.String(), c.Path, sum, c.Provider
	if lock != nil {
		lock.Entries[d.Tool] = LockEntry{Name: d.Tool, Version: c.Version.String(), Provider: c.Provider, Path: c.Path,
			Blake3: sum, ResolvedAt: r.now().UTC().Format(time.RFC3339)}
		b.Locked = true
	}
	return b, nil
}

// Select picks the best satisfying candidate of the allowed providers,
// probing versions only when the constraint needs one.
func (r *Resolver) Select(d Decision, env Env) (Candidate, error) {
	var ok []Candidate
	for _, p := range Providers {
		if d.Provider != "" && d.Provider != p {
			continue
		}
		for _, c := range Candidates(r.FS, env, p, d.Tool) {
			if d.Constraint.NeedsVersion() && !c.Version.Known && p == "system" {
				c.Version = r.probe(c.Path)
			}
			if d.Constraint.Satisfied(c.Version) {
				ok = append(ok, c)
			}
		}
	}
	if len(ok) == 0 {
		msg := fmt.Sprintf("no installed %s satisfies `%s`", d.Tool, d.Constraint)
		if d.Provider != "" {
			msg += " from provider " + d.Provider
		}
		if a := Ambient(r.FS, env, d.Tool); a != "" {
			msg += fmt.Sprintf(" (an unconstrained %s exists at %s; the constraint shadows it)", d.Tool, a)
		}
		return Candidate{}, &Error{Code: CodeNotFound, Tool: d.Tool, Msg: msg,
			Hint: "install the tool (`reef fetch " + d.Tool + "`) or change the constraint"}
	}
	rankCandidates(ok)
	return ok[0], nil
}

func versionText(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func short(h string) string {
	if len(h) > 8 {
		return h[:8]
	}
	return h
}

func errText(err error) string {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
