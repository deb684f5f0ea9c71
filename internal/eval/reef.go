package eval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/value"
)

// Reef in the evaluator: the session's scope chain and lock, cached and
// checked against the files' metadata on every use (so an edited manifest
// takes effect at once, unlike the reference's cwd-keyed cache), the
// resolver that binds constrained command heads, and `with reef:`
// overrides on the thread (reefOver).

// reefState is a session's Reef cache. The zero value is ready.
type reefState struct {
	mu    sync.Mutex
	cache reef.Cache  // digests and probed versions, across calls
	chain *reef.Chain // the chain last discovered
	dir   string      // where it was discovered
	lock  *reef.Lock  // the lock last parsed
	lockC *reef.Chain // the chain it was parsed from

	// noticed are the untrusted directories this session has told its
	// stderr about (at most MaxTrustNotices), so each is said once.
	noticed map[string]bool

	// The last ReefBindings report and what it was made from.
	repKey   string
	repChain *reef.Chain
	rep      ReefReport
}

// reefFS is Reef's file access through the thread's host gate.
type reefFS struct {
	ctx context.Context
	h   host.Host
}

func (f reefFS) Stat(p string) (fs.FileInfo, error)      { return f.h.Stat(f.ctx, p) }
func (f reefFS) ReadFile(p string) ([]byte, error)       { return f.h.ReadFile(f.ctx, p) }
func (f reefFS) ReadDir(p string) ([]fs.DirEntry, error) { return f.h.ReadDir(f.ctx, p) }
func (f reefFS) ReadEach(p string, fn func([]byte) error) error {
	return f.h.ReadEach(f.ctx, p, fn)
}

func (t *thread) reefFS() reefFS { return reefFS{ctx: t.ctx, h: t.host} }

// reefEnv is what the providers read of the thread, with c's trusted
// project directories as the roots of the project-local providers.
func (t *thread) reefEnv(c *reef.Chain) reef.Env {
	e := reefEnvOf(t.dir, t.env)
	e.LocalRoots = c.LocalRoots()
	return e
}

// MaxTrustNotices bounds the untrusted directories one session remembers
// having named on its stderr; past it, notices are no longer printed.
const MaxTrustNotices = 256

// reefNotice says once per session, on the thread's stderr, that a
// directory's project files were ignored: one line, never a prompt.
func (t *thread) reefNotice(c *reef.Chain) {
	if len(c.Untrusted) == 0 {
		return
	}
	rs := &t.in.reef
	var news []reef.UntrustedDir
	rs.mu.Lock()
	for _, u := range c.Untrusted {
		key := u.Dir + "\x00" + u.State.String()
		if rs.noticed[key] || len(rs.noticed) >= MaxTrustNotices {
			continue
		}
		if rs.noticed == nil {
			rs.noticed = map[string]bool{}
		}
		rs.noticed[key] = true
		news = append(news, u)
	}
	rs.mu.Unlock()
	for _, u := range news {
		if t.in.opts.TrustNotice != nil {
			t.in.opts.TrustNotice(u)
			continue
		}
		_, _ = fmt.Fprintln(t.stderr, u.Notice())
	}
}

func reefEnvOf(dir string, env []string) reef.Env {
	e := reef.Env{Dir: dir}
	if p, ok := lookupEnv(env, "PATH"); ok {
		e.Path = filepath.SplitList(p)
	}
	e.Home, _ = lookupEnv(env, "HOME")
	e.MiseDataDir, _ = lookupEnv(env, "MISE_DATA_DIR")
	e.CargoHome, _ = lookupEnv(env, "CARGO_HOME")
	return e
}

// reefUserFile is the user manifest: $XDG_CONFIG_HOME/shoal/shoal.toml,
// else ~/.config/shoal/shoal.toml.
func reefUserFile(env []string) string {
	if x, ok := lookupEnv(env, "XDG_CONFIG_HOME"); ok && filepath.IsAbs(x) {
		return filepath.Join(x, "shoal", "shoal.toml")
	}
	if h, ok := lookupEnv(env, "HOME"); ok && filepath.IsAbs(h) {
		return filepath.Join(h, ".config", "shoal", "shoal.toml")
	}
	return ""
}

// reefChain is the chain in force on the thread (its overrides first),
// rediscovered when a manifest file appeared, vanished or changed.
func (t *thread) reefChain() (*reef.Chain, []error) {
	if !t.in.opts.Reef {
		return (&reef.Chain{}).WithOverrides(t.reefOver), nil
	}
	fsys := t.reefFS()
	user := reefUserFile(t.env)
	key := reef.ChainKey(fsys, t.dir, user, t.in.opts.ProjectTrust)
	rs := &t.in.reef
	rs.mu.Lock()
	c := rs.chain
	fresh := c != nil && rs.dir == t.dir && c.Key == key
	rs.mu.Unlock()
	var skipped []error
	if !fresh {
		c, skipped = reef.Discover(fsys, t.dir, user, t.in.opts.ProjectTrust)
		rs.mu.Lock()
		rs.chain, rs.dir = c, t.dir
		rs.mu.Unlock()
	}
	t.reefNotice(c)
	return c.WithOverrides(t.reefOver), skipped
}

// reefInvalidate drops the cached chain (reef add).
func (t *thread) reefInvalidate() {
	rs := &t.in.reef
	rs.mu.Lock()
	rs.chain = nil
	rs.mu.Unlock()
}

// reefLock is a working copy of the chain's lock (an empty lock when
// there is none; nil when the chain has no lock path): the bytes
// discovery read and checked with the rest of its directory's project
// files, never a second read. A lock that cannot be parsed is
// reef_provider; one naming a path its provider would not find is
// reef_lock_path.
func (t *thread) reefLock(c *reef.Chain) (*reef.Lock, error) {
	path := c.LockPath()
	if path == "" {
		return nil, nil
	}
	rs := &t.in.reef
	rs.mu.Lock()
	if rs.lock != nil && rs.lockC != nil && rs.lockC.Key == c.Key && rs.lockC.LockPath() == path {
		l := copyLock(rs.lock)
		rs.mu.Unlock()
		return l, t.reefCheckLock(c, l)
	}
	rs.mu.Unlock()
	l := reef.NewLock()
	l.Dir = filepath.Dir(path)
	if data, ok := c.LockData(path); ok {
		var err error
		if l, err = reef.ParseLock(path, data); err != nil {
			return nil, reefErr(&reef.Error{Code: reef.CodeProvider, Msg: err.Error(), Hint: "fix or delete it and run `reef lock`"})
		}
	}
	rs.mu.Lock()
	rs.lock, rs.lockC = copyLock(l), c
	rs.mu.Unlock()
	return l, t.reefCheckLock(c, l)
}

// reefCheckLock refuses a lock any of whose entries names a path its
// provider would not find (reef.CheckEntry).
func (t *thread) reefCheckLock(c *reef.Chain, l *reef.Lock) error {
	if err := l.Check(t.reefEnv(c)); err != nil {
		return reefErr(err)
	}
	return nil
}

func copyLock(l *reef.Lock) *reef.Lock {
	n := reef.NewLock()
	n.Dir = l.Dir
	for k, v := range l.Entries {
		n.Entries[k] = v
	}
	return n
}

// reefSave writes the chain's lock. Its directory is one the person
// trusted (the chain's lock path is never in another), and the write
// changes its digest: a session with a TrustRecorder (the shoal command,
// the person's own shell) carries the trust over to exactly what it
// wrote; elsewhere (the kernel) the directory is then changed, and inert
// until the person trusts it again.
func (t *thread) reefSave(c *reef.Chain, l *reef.Lock) error {
	path := c.LockPath()
	if path == "" || l == nil {
		return nil
	}
	data := l.Encode()
	if err := t.host.WriteFile(t.ctx, path, data, false); err != nil {
		return reefErr(&reef.Error{Code: reef.CodeProvider, Msg: fmt.Sprintf("writing %s: %v", path, err)})
	}
	if p := c.Project(filepath.Dir(path)); p != nil && p.Digest != "" {
		// A trust-checked project directory (the user's own lock beside
		// their shoal.toml needs no trust).
		t.reefAmend(p.Digest, p.With(reef.LockName, data))
	}
	rs := &t.in.reef
	rs.mu.Lock()
	rs.lock, rs.lockC, rs.chain = nil, nil, nil
	rs.mu.Unlock()
	return nil
}

// reefAmend carries trust from old to now after the session's own write,
// when the session has a recorder; a refusal is said on stderr.
func (t *thread) reefAmend(old string, now *reef.Project) {
	rec, ok := t.in.opts.ProjectTrust.(reef.TrustRecorder)
	if !ok {
		return
	}
	if err := rec.Amend(old, now); err != nil {
		_, _ = fmt.Fprintf(t.stderr, "shoal: %s was written, but its trust was not carried over: %v\n", now.Dir, err)
	}
}

// resolver is the session's resolver, reading through this thread's gate
// and probing versions with `TOOL --version` spawned through it.
func (t *thread) resolver() *reef.Resolver {
	return &reef.Resolver{FS: t.reefFS(), Probe: t.reefProbe, Cache: &t.in.reef.cache}
}

// reefProbe runs `path --version` through the gate, bounded in time and
// output.
func (t *thread) reefProbe(path string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(t.ctx, reef.ProbeTimeout)
	defer cancel()
	var res *host.Result
	var err error
	t.unlocked(func() {
		res, err = t.host.Run(ctx, &host.Spawn{Argv: []string{path, "--version"}, Dir: t.dir, Env: t.env,
			MaxCapture: reef.MaxProbeOutput, NoSpill: true})
	})
	if err != nil {
		return nil, err
	}
	if res.SpillPath != "" {
		_ = t.host.Remove(context.WithoutCancel(t.ctx), res.SpillPath, false)
	}
	return append(res.Stdout, res.Stderr...), nil
}

// reefErr is a Reef error as a language error.
func reefErr(err error) error {
	var re *reef.Error
	if errors.As(err, &re) {
		return &value.Error{Code: re.Code, Msg: re.Msg, Hint: re.Hint}
	}
	return err
}

// reefPolicy: a REPL session picks and records a binding for an unlocked
// constrained tool; scripts, -c and kernel sessions refuse.
func (t *thread) reefPolicy() reef.Policy {
	if t.in.opts.REPL {
		return reef.Interactive
	}
	return reef.Script
}

// reefResolveHead binds a bare command head when some scope constrains
// it: ok is false when Reef does not engage (ordinary PATH lookup). view
// is the child's PATH: a directory of links to the bound tools first.
func (t *thread) reefResolveHead(name string) (path, view string, ok bool, err error) {
	c, _ := t.reefChain()
	if len(c.Scopes) == 0 || !c.Constrained(name) {
		return "", "", false, nil
	}
	d, _, err := c.Decide(name)
	if err != nil {
		return "", "", true, reefErr(err)
	}
	lock, err := t.reefLock(c)
	if err != nil {
		return "", "", true, err
	}
	b, err := t.resolver().Resolve(d, t.reefEnv(c), lock, t.reefPolicy(), false)
	if err != nil {
		return "", "", true, reefErr(err)
	}
	if b.Locked {
		note := fmt.Sprintf("reef: locked %s@%s via %s (%s)\n", b.Name, b.Version, b.Provider, b.Path)
		if err := t.reefSave(c, lock); err != nil {
			// The binding holds for this run; say that it was not kept.
			note = fmt.Sprintf("reef: bound %s@%s via %s (%s), but the lock was not saved: %v\n", b.Name, b.Version, b.Provider, b.Path, err)
		}
		_, _ = fmt.Fprint(t.stderr, note)
	}
	view, err = t.reefView(b, lock, c.Hermetic())
	if err != nil {
		return "", "", true, err
	}
	return b.Path, view, true, nil
}

// ReefBinding is one tool binding as a session reports it (the kernel's
// session.reef).
type ReefBinding struct {
	Tool        string  `json:"tool"`
	Version     *string `json:"version"`
	Provider    string  `json:"provider"`
	Path        string  `json:"path"`
	Scope       string  `json:"scope"`
	Constrained bool    `json:"constrained"`
	Constraint  string  `json:"constraint,omitempty"`
	Hash8       string  `json:"hash8,omitempty"`
	Error       string  `json:"error,omitempty"` // the reef_* code when it does not resolve
}

func reefBindingOf(b reef.Binding) ReefBinding {
	out := ReefBinding{Tool: b.Name, Provider: b.Provider, Path: b.Path, Scope: b.Scope, Constrained: true,
		Constraint: b.Constraint, Hash8: b.Hash8()}
	if b.Version != "" && b.Version != "unknown" {
		v := b.Version
		out.Version = &v
	}
	return out
}

// ReefReport is what ReefBindings answers: the bindings, and one notice
// per directory whose project files were ignored because the person has
// not trusted them (or they changed since).
type ReefReport struct {
	Bindings []ReefBinding
	Warnings []string
}

// ReefBindings reports the constrained tools in force at dir with env, as
// the session would bind them now, without spawning or writing anything:
// a valid lock entry, else the candidate an interactive session would
// pick (versions unprobed). A tool that does not resolve carries its
// error code (every tool is reef_lock_path when the lock names a path
// its provider would not find, as an exec would be refused). Reads go
// through the session's host gate; project directories count only as
// Options.ProjectTrust allows. The report is cached until a project
// file in scope or the trust store changes (their size or modification
// time), or dir or PATH does. It does not take the session lock, so it
// may be called while an evaluation runs.
func (in *Interp) ReefBindings(ctx context.Context, dir string, env []string) ReefReport {
	if !in.opts.Reef {
		return ReefReport{}
	}
	fsys := reefFS{ctx: ctx, h: in.host}
	user := reefUserFile(env)
	path, _ := lookupEnv(env, "PATH")
	key := dir + "\x00" + path + "\x00" + reef.ChainKey(fsys, dir, user, in.opts.ProjectTrust)
	rs := &in.reef
	rs.mu.Lock()
	if rs.repKey == key && rs.repChain != nil {
		out := rs.rep
		rs.mu.Unlock()
		return out
	}
	rs.mu.Unlock()
	c, _ := reef.Discover(fsys, dir, user, in.opts.ProjectTrust)
	var out ReefReport
	for _, u := range c.Untrusted {
		out.Warnings = append(out.Warnings, u.Notice())
	}
	if len(c.Scopes) > 0 {
		out.Bindings = reefReport(fsys, &rs.cache, c, dir, env)
	}
	rs.mu.Lock()
	rs.repKey, rs.repChain, rs.rep = key, c, out
	rs.mu.Unlock()
	return out
}

// reefReport resolves every tool c constrains as ReefBindings reports it.
func reefReport(fsys reefFS, cache *reef.Cache, c *reef.Chain, dir string, env []string) []ReefBinding {
	r := &reef.Resolver{FS: fsys, Cache: cache}
	renv := reefEnvOf(dir, env)
	renv.LocalRoots = c.LocalRoots()
	lock := reef.NewLock()
	var lockErr error
	if p := c.LockPath(); p != "" {
		lock.Dir = filepath.Dir(p)
		if data, ok := c.LockData(p); ok {
			if l, err := reef.ParseLock(p, data); err == nil {
				lock = l
				lockErr = l.Check(renv)
			}
		}
	}
	var out []ReefBinding
	for _, n := range c.Names() {
		d, _, err := c.Decide(n)
		var b reef.Binding
		if err == nil {
			err = lockErr
		}
		if err == nil {
			b, err = r.Resolve(d, renv, lock, reef.Interactive, false)
		}
		if err != nil {
			rb := ReefBinding{Tool: n, Scope: d.Scope, Constrained: true, Constraint: d.Constraint.String()}
			var re *reef.Error
			if errors.As(err, &re) {
				rb.Error = re.Code
				rb.Scope = "unresolved: " + re.Code
			}
			out = append(out, rb)
			continue
		}
		out = append(out, reefBindingOf(b))
	}
	return out
}

// reefChainTable is a binding's chain: one row per scope that mentions
// the tool, nearest first, the first selected and the rest shadowed.
func reefChainTable(ms []reef.Mention) value.Value {
	rows := make([][]value.Value, len(ms))
	for i, m := range ms {
		outcome := "shadowed"
		if i == 0 {
			outcome = "selected"
		}
		rows[i] = []value.Value{value.Str(m.Scope), value.Str(m.Source), value.Str(m.Constraint), value.Str(outcome)}
	}
	return value.TableFromRows([]string{"scope", "source", "constraint", "outcome"}, rows)
}

// strOrNull is s, or null when empty.
func strOrNull(s string) value.Value {
	if s == "" {
		return value.Nil
	}
	return value.Str(s)
}

// reefUnresolved is the record `which` gives for a constrained tool Reef
// refused: its scope says why, its binding fields are null.
func reefUnresolved(name string, d reef.Decision, err error) *value.Record {
	code, msg, hint := "reef_provider", err.Error(), ""
	var re *reef.Error
	if errors.As(err, &re) {
		code, msg, hint = re.Code, re.Msg, re.Hint
	}
	constraint := value.Value(value.Nil)
	if d.Constraint.Text != "" {
		constraint = value.Str(d.Constraint.String())
	}
	return value.NewRecord(
		[]string{"name", "scope", "constraint", "version", "path", "hash8", "provider", "chain", "note", "hint"},
		[]value.Value{value.Str(name), value.Str("unresolved: " + code), constraint, value.Nil, value.Nil, value.Nil,
			value.Nil, reefChainTable(d.Mentions), value.Str(msg), strOrNull(hint)})
}

// effWhich: a PATH lookup; --all also looks for the name in every
// provider's directories (node_modules/.bin and .venv/bin up the tree,
// mise and cargo installs, PATH), which derivation cannot list.
func effWhich(d *leash.Deriver) {
	d.Add(leash.Effect{Kind: host.EnvRead, Name: "PATH"}, leash.Reversible)
	if d.Flag("all") {
		d.Add(leash.Effect{Kind: host.FSRead, Name: "reef provider candidates", Dynamic: true}, leash.Reversible)
	}
}

// reefWhich answers `which NAME` for a name some scope constrains: the
// binding (recorded in the lock when new), or the unresolved record.
func (t *thread) reefWhich(name string, c *reef.Chain) value.Value {
	d, _, err := c.Decide(name)
	if err != nil {
		return reefUnresolved(name, d, err)
	}
	lock, err := t.reefLock(c)
	if err != nil {
		return reefUnresolved(name, d, err)
	}
	b, err := t.resolver().Resolve(d, t.reefEnv(c), lock, reef.Interactive, false)
	if err != nil {
		return reefUnresolved(name, d, err)
	}
	if b.Locked {
		if err := t.reefSave(c, lock); err != nil {
			_, _ = fmt.Fprintf(t.stderr, "reef: %s bound, but the lock was not saved: %v\n", name, err)
		}
	}
	return value.NewRecord(
		[]string{"name", "scope", "constraint", "version", "path", "hash8", "provider", "chain"},
		[]value.Value{value.Str(name), value.Str(b.Scope), value.Str(b.Constraint), value.Str(b.Version),
			value.Path(b.Path), value.Str(b.Hash8()), value.Str(b.Provider), reefChainTable(b.Mentions)})
}

// reefWhichAll lists every provider's candidates for name.
func (t *thread) reefWhichAll(name string) value.Value {
	c, _ := t.reefChain()
	cs := reef.AllCandidates(t.reefFS(), t.reefEnv(c), name)
	rows := make([][]value.Value, len(cs))
	for i, c := range cs {
		rows[i] = []value.Value{value.Str(name), value.Str(c.Version.String()), value.Path(c.Path), value.Str(c.Provider), value.Str(c.Scope)}
	}
	return value.TableFromRows([]string{"tool", "version", "path", "provider", "scope"}, rows)
}

// ambientScope labels an unconstrained PATH hit: system for the canonical
// directories, ambient for the rest.
func ambientScope(p string) string {
	switch filepath.Dir(p) {
	case "/usr/bin", "/usr/local/bin", "/bin":
		return "system"
	}
	return "ambient"
}

// reefView makes (or reuses) the content-addressed directory of links to
// the bound tool and every locked one, under $XDG_RUNTIME_DIR/shoal/views
// (private to the user), and returns the child's PATH: the view's bin
// before the session's PATH, or alone when a scope is hermetic. With no
// runtime directory, or when a step fails (the gate refused it, say), the
// session's PATH is kept (""); a hermetic scope then refuses the spawn
// (reef_provider) rather than let the child search the ambient PATH.
func (t *thread) reefView(b reef.Binding, lock *reef.Lock, hermetic bool) (string, error) {
	links := map[string]string{b.Name: b.Path}
	if lock != nil {
		for n, e := range lock.Entries {
			if _, ok := links[n]; !ok && e.Path != "" && filepath.IsAbs(e.Path) {
				links[n] = e.Path
			}
		}
	}
	fail := func(why string) (string, error) {
		if !hermetic {
			return "", nil
		}
		return "", reefErr(&reef.Error{Code: reef.CodeProvider, Tool: b.Name,
			Msg:  fmt.Sprintf("%s: a hermetic scope runs children with only Reef's PATH view, and %s", b.Name, why),
			Hint: "set XDG_RUNTIME_DIR to a private directory, or drop hermetic = true"})
	}
	rt, ok := lookupEnv(t.env, "XDG_RUNTIME_DIR")
	if !ok || !filepath.IsAbs(rt) {
		return fail("XDG_RUNTIME_DIR is not set")
	}
	dir, err := reef.BuildView(reefViewFS{t}, filepath.Join(rt, "shoal", "views"), links, t.host.Now().UnixNano())
	if err != nil {
		return fail("the view could not be built: " + err.Error())
	}
	if hermetic {
		return dir, nil
	}
	if old, ok := lookupEnv(t.env, "PATH"); ok && old != "" {
		return dir + string(filepath.ListSeparator) + old, nil
	}
	return dir, nil
}

// reefViewFS is what building a view needs of the host gate.
type reefViewFS struct{ t *thread }

func (f reefViewFS) Stat(p string) (fs.FileInfo, error) { return f.t.host.Stat(f.t.ctx, p) }
func (f reefViewFS) MkdirAll(p string) error            { return f.t.host.MkdirAll(f.t.ctx, p) }
func (f reefViewFS) Symlink(target, link string) error {
	return f.t.host.Symlink(f.t.ctx, target, link)
}
func (f reefViewFS) Rename(from, to string) error { return f.t.host.Rename(f.t.ctx, from, to) }
func (f reefViewFS) RemoveAll(p string) error     { return f.t.host.Remove(f.t.ctx, p, true) }

// reefDefaultRunners is the runner table a manifest's [runners] overlay:
// extension (with its dot) → tool and argv before the script.
var reefDefaultRunners = map[string]reef.Runner{
	".py": {Tool: "python"}, ".js": {Tool: "node"}, ".ts": {Tool: "deno", Args: []string{"run"}},
	".sh": {Tool: "sh"}, ".rb": {Tool: "ruby"}, ".lua": {Tool: "lua"},
}

// reefRunner is the runner for a script extension when a tools-bearing
// manifest is in scope: the defaults, then each scope's [runners] from the
// farthest to the nearest (the nearest wins per extension). ok is false
// without a manifest (run then keeps its fixed table) or for an
// extension nothing maps.
func (t *thread) reefRunner(ext string) (reef.Runner, bool) {
	if ext == "" || ext == ".shl" {
		return reef.Runner{}, false
	}
	c, _ := t.reefChain()
	found := false
	r, ok := reefDefaultRunners[ext]
	for i := len(c.Scopes) - 1; i >= 0; i-- {
		s := c.Scopes[i]
		if s.Kind == reef.ScopeOverride {
			continue
		}
		found = true
		if x, has := s.Manifest.Runners[ext[1:]]; has {
			r, ok = x, true
		}
	}
	return r, found && ok
}
