package host

import (
	"context"
	"io/fs"
	"net/url"
	"slices"
	"sync"
	"time"
)

// Recorder wraps a Host and records, in call order, the ops each call asks
// for, exactly as the OS host would ask them, before delegating. Tests
// elsewhere use it to assert which effects a piece of evaluation has. It is
// safe for concurrent use.
type Recorder struct {
	inner Host
	mu    sync.Mutex
	ops   []Op
}

var _ Host = (*Recorder)(nil)

// NewRecording returns a Recorder delegating to inner.
func NewRecording(inner Host) *Recorder { return &Recorder{inner: inner} }

// Ops returns a copy of the ops recorded so far.
func (r *Recorder) Ops() []Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ops)
}

// Reset forgets the recorded ops.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.ops = r.ops[:0]
	r.mu.Unlock()
}

func (r *Recorder) record(ops ...Op) {
	r.mu.Lock()
	r.ops = append(r.ops, ops...)
	r.mu.Unlock()
}

// Stat records fs_read path.
func (r *Recorder) Stat(ctx context.Context, path string) (fs.FileInfo, error) {
	r.record(Op{Effect: FSRead, Target: path})
	return r.inner.Stat(ctx, path)
}

// Lstat records fs_read path.
func (r *Recorder) Lstat(ctx context.Context, path string) (fs.FileInfo, error) {
	r.record(Op{Effect: FSRead, Target: path})
	return r.inner.Lstat(ctx, path)
}

// ReadFile records fs_read path.
func (r *Recorder) ReadFile(ctx context.Context, path string) ([]byte, error) {
	r.record(Op{Effect: FSRead, Target: path})
	return r.inner.ReadFile(ctx, path)
}

// ReadPrefix records fs_read path.
func (r *Recorder) ReadPrefix(ctx context.Context, path string, n int64) ([]byte, bool, error) {
	r.record(Op{Effect: FSRead, Target: path})
	return r.inner.ReadPrefix(ctx, path, n)
}

// ReadEach records fs_read path.
func (r *Recorder) ReadEach(ctx context.Context, path string, fn func([]byte) error) error {
	r.record(Op{Effect: FSRead, Target: path})
	return r.inner.ReadEach(ctx, path, fn)
}

// Watch records fs_read root.
func (r *Recorder) Watch(ctx context.Context, root string, recursive bool) (Watcher, error) {
	r.record(Op{Effect: FSRead, Target: root})
	return r.inner.Watch(ctx, root, recursive)
}

// Tail records fs_read path.
func (r *Recorder) Tail(ctx context.Context, path string, fromStart bool) (Tailer, error) {
	r.record(Op{Effect: FSRead, Target: path})
	return r.inner.Tail(ctx, path, fromStart)
}

// WriteFile records fs_write path.
func (r *Recorder) WriteFile(ctx context.Context, path string, data []byte, appendTo bool) error {
	r.record(Op{Effect: FSWrite, Target: path})
	return r.inner.WriteFile(ctx, path, data, appendTo)
}

// ReadDir records fs_read path.
func (r *Recorder) ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	r.record(Op{Effect: FSRead, Target: path})
	return r.inner.ReadDir(ctx, path)
}

// MkdirAll records fs_write path.
func (r *Recorder) MkdirAll(ctx context.Context, path string) error {
	r.record(Op{Effect: FSWrite, Target: path})
	return r.inner.MkdirAll(ctx, path)
}

// Remove records fs_delete path.
func (r *Recorder) Remove(ctx context.Context, path string, recursive bool) error {
	r.record(Op{Effect: FSDelete, Target: path})
	return r.inner.Remove(ctx, path, recursive)
}

// Rename records fs_delete from and fs_write to.
func (r *Recorder) Rename(ctx context.Context, from, to string) error {
	r.record(Op{Effect: FSDelete, Target: from}, Op{Effect: FSWrite, Target: to})
	return r.inner.Rename(ctx, from, to)
}

// Copy records fs_read from and fs_write to.
func (r *Recorder) Copy(ctx context.Context, from, to string, recursive bool) error {
	r.record(Op{Effect: FSRead, Target: from}, Op{Effect: FSWrite, Target: to})
	return r.inner.Copy(ctx, from, to, recursive)
}

// Symlink records fs_write link.
func (r *Recorder) Symlink(ctx context.Context, target, link string) error {
	r.record(Op{Effect: FSWrite, Target: link})
	return r.inner.Symlink(ctx, target, link)
}

// Link records fs_read target and fs_write link.
func (r *Recorder) Link(ctx context.Context, target, link string) error {
	r.record(Op{Effect: FSRead, Target: target}, Op{Effect: FSWrite, Target: link})
	return r.inner.Link(ctx, target, link)
}

// Chtimes records fs_write path.
func (r *Recorder) Chtimes(ctx context.Context, path string, atime, mtime time.Time) error {
	r.record(Op{Effect: FSWrite, Target: path})
	return r.inner.Chtimes(ctx, path, atime, mtime)
}

// Facts records sys_read of the fact.
func (r *Recorder) Facts(ctx context.Context, fact string) (Facts, error) {
	r.record(Op{Effect: SysRead, Target: fact})
	return r.inner.Facts(ctx, fact)
}

// HTTP records net_connect of the URL's host:port (nothing for a URL it
// cannot judge; redirects are asked by the inner host).
func (r *Recorder) HTTP(ctx context.Context, req *HTTPRequest) (*HTTPResponse, error) {
	if u, err := url.Parse(req.URL); err == nil {
		if t, err := ConnectTarget(u); err == nil {
			r.record(Op{Effect: NetConnect, Target: t})
		}
	}
	return r.inner.HTTP(ctx, req)
}

// Secret records secret_use of the name.
func (r *Recorder) Secret(ctx context.Context, name string) ([]byte, error) {
	r.record(Op{Effect: SecretUse, Target: name})
	return r.inner.Secret(ctx, name)
}

// Glob records fs_read of the walk's starting directory (nothing for a bad
// pattern): what a plan must name. The OS host asks again for each
// directory beneath it the walk lists, once each; a refusal there only
// skips that directory, so those asks are not recorded.
func (r *Recorder) Glob(ctx context.Context, dir, pattern string, hidden bool) ([]string, error) {
	if p, err := parsePattern(pattern); err == nil {
		r.record(Op{Effect: FSRead, Target: p.root(dir)})
	}
	return r.inner.Glob(ctx, dir, pattern, hidden)
}

// LookPath records env_read PATH, or fs_read name for a name with a slash.
func (r *Recorder) LookPath(ctx context.Context, name string, env []string) (string, error) {
	if name != "" {
		r.record(lookPathOp(name))
	}
	return r.inner.LookPath(ctx, name, env)
}

// Run records proc_spawn argv[0] with the argv.
func (r *Recorder) Run(ctx context.Context, s *Spawn) (*Result, error) {
	if s != nil && len(s.Argv) > 0 {
		r.record(Op{Effect: ProcSpawn, Target: s.Argv[0], Argv: slices.Clone(s.Argv)})
	}
	return r.inner.Run(ctx, s)
}

// RunTerminal records proc_spawn argv[0] with the argv.
func (r *Recorder) RunTerminal(ctx context.Context, s *Spawn, tty int) (*Result, error) {
	if s != nil && len(s.Argv) > 0 {
		r.record(Op{Effect: ProcSpawn, Target: s.Argv[0], Argv: slices.Clone(s.Argv)})
	}
	return r.inner.RunTerminal(ctx, s, tty)
}

// ReadTerminalLine passes through: what the user types is not an effect.
func (r *Recorder) ReadTerminalLine(ctx context.Context, tty int, prompt string, max int) (string, error) {
	return r.inner.ReadTerminalLine(ctx, tty, prompt, max)
}

// Environ records env_read "*".
func (r *Recorder) Environ(ctx context.Context) ([]string, error) {
	r.record(Op{Effect: EnvRead, Target: "*"})
	return r.inner.Environ(ctx)
}

// Clock records time.
func (r *Recorder) Clock(ctx context.Context) (time.Time, error) {
	r.record(Op{Effect: Clock})
	return r.inner.Clock(ctx)
}

// Now records nothing: it is bookkeeping, not a gated read.
func (r *Recorder) Now() time.Time { return r.inner.Now() }
