package eval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// fakeProgram is a program the fake host can run.
type fakeProgram func(s *host.Spawn, stdin []byte) (stdout, stderr string, status int)

// fakeHost is an in-memory host.Host: a map filesystem, a fixed clock and
// Go functions standing in for programs. It records every spawn.
type fakeHost struct {
	mu     sync.Mutex
	files  map[string][]byte
	dirs   map[string]bool
	progs  map[string]fakeProgram
	env    []string
	now    time.Time
	spawns []*host.Spawn
}

func newFakeHost() *fakeHost {
	h := &fakeHost{
		files: map[string][]byte{},
		dirs:  map[string]bool{"/": true, "/work": true, "/home": true},
		env:   []string{"HOME=/home", "PATH=/bin"},
		now:   time.Date(2026, 7, 9, 14, 0, 0, 0, time.UTC),
	}
	h.progs = map[string]fakeProgram{
		"true":  func(*host.Spawn, []byte) (string, string, int) { return "", "", 0 },
		"false": func(*host.Spawn, []byte) (string, string, int) { return "", "", 1 },
		// cat copies stdin.
		"cat": func(_ *host.Spawn, in []byte) (string, string, int) { return string(in), "", 0 },
		// printf prints its first argument verbatim.
		"printf": func(s *host.Spawn, _ []byte) (string, string, int) {
			if len(s.Argv) < 2 {
				return "", "", 0
			}
			return s.Argv[1], "", 0
		},
		// args prints its arguments one per line.
		"args": func(s *host.Spawn, _ []byte) (string, string, int) {
			return strings.Join(s.Argv[1:], "\n") + "\n", "", 0
		},
		// fail writes to stderr and exits 3.
		"fail": func(*host.Spawn, []byte) (string, string, int) { return "partial\n", "boom\n", 3 },
		// getenv prints the value of the variable named by its argument.
		"getenv": func(s *host.Spawn, _ []byte) (string, string, int) {
			v, _ := lookupEnv(s.Env, s.Argv[1])
			return v + "\n", "", 0
		},
		// where prints the working directory.
		"where": func(s *host.Spawn, _ []byte) (string, string, int) { return s.Dir + "\n", "", 0 },
		// sort sorts stdin lines.
		"sort": func(_ *host.Spawn, in []byte) (string, string, int) {
			lines := strings.Split(strings.TrimSuffix(string(in), "\n"), "\n")
			sort.Strings(lines)
			return strings.Join(lines, "\n") + "\n", "", 0
		},
	}
	return h
}

func (h *fakeHost) stat(p string) (fs.FileInfo, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dirs[p] {
		return fakeInfo{name: path.Base(p), dir: true}, nil
	}
	if b, ok := h.files[p]; ok {
		return fakeInfo{name: path.Base(p), size: int64(len(b))}, nil
	}
	if strings.HasPrefix(p, "/bin/") {
		if _, ok := h.progs[path.Base(p)]; ok {
			return fakeInfo{name: path.Base(p)}, nil
		}
	}
	return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
}

func (h *fakeHost) Stat(_ context.Context, p string) (fs.FileInfo, error)  { return h.stat(p) }
func (h *fakeHost) Lstat(_ context.Context, p string) (fs.FileInfo, error) { return h.stat(p) }

func (h *fakeHost) ReadFile(_ context.Context, p string) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, ok := h.files[p]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	return append([]byte(nil), b...), nil
}

func (h *fakeHost) ReadEach(ctx context.Context, p string, fn func([]byte) error) error {
	b, err := h.ReadFile(ctx, p)
	if err != nil {
		return err
	}
	return fn(b)
}

func (h *fakeHost) ReadPrefix(ctx context.Context, p string, n int64) ([]byte, bool, error) {
	b, err := h.ReadFile(ctx, p)
	if err != nil {
		return nil, false, err
	}
	if int64(len(b)) > n {
		return b[:n], true, nil
	}
	return b, false, nil
}

func (h *fakeHost) Watch(context.Context, string, bool) (host.Watcher, error) {
	return nil, errors.New("fake host: no watch")
}

func (h *fakeHost) Tail(context.Context, string, bool) (host.Tailer, error) {
	return nil, errors.New("fake host: no tail")
}

func (h *fakeHost) ReadTerminalLine(context.Context, int, string, int) (string, error) {
	return "", errors.New("fake host: no terminal")
}

func (h *fakeHost) RunTerminal(context.Context, *host.Spawn, int) (*host.Result, error) {
	return nil, errors.New("fake host: no terminal")
}

func (h *fakeHost) WriteFile(_ context.Context, p string, data []byte, appendTo bool) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.dirs[path.Dir(p)] {
		return &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	if appendTo {
		h.files[p] = append(h.files[p], data...)
	} else {
		h.files[p] = append([]byte(nil), data...)
	}
	return nil
}

func (h *fakeHost) ReadDir(context.Context, string) ([]fs.DirEntry, error) { return nil, nil }

func (h *fakeHost) MkdirAll(_ context.Context, p string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ; p != "/"; p = path.Dir(p) {
		h.dirs[p] = true
	}
	return nil
}

func (h *fakeHost) Remove(context.Context, string, bool) error       { return nil }
func (h *fakeHost) Rename(context.Context, string, string) error     { return nil }
func (h *fakeHost) Copy(context.Context, string, string, bool) error { return nil }
func (h *fakeHost) Symlink(context.Context, string, string) error    { return nil }

func (h *fakeHost) Link(_ context.Context, target, link string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, ok := h.files[target]
	if !ok {
		return &fs.PathError{Op: "link", Path: target, Err: fs.ErrNotExist}
	}
	h.files[link] = b
	return nil
}

func (h *fakeHost) Chtimes(context.Context, string, time.Time, time.Time) error { return nil }

func (h *fakeHost) Facts(context.Context, string) (host.Facts, error) {
	return host.Facts{Hostname: "fakehost", Pid: 4242, Username: "tester", OS: "linux", Arch: "amd64", CPUs: 2,
		Uptime: 90 * time.Minute, UptimeKnown: true}, nil
}

// HTTP: the fake host has no network.
func (h *fakeHost) HTTP(_ context.Context, r *host.HTTPRequest) (*host.HTTPResponse, error) {
	return nil, fmt.Errorf("%w: fakehost has no network (%s)", host.ErrNet, r.URL)
}

// Secret: the fake host's store holds nothing.
func (h *fakeHost) Secret(_ context.Context, name string) ([]byte, error) {
	return nil, fmt.Errorf("secret %s: %w", name, fs.ErrNotExist)
}

func (h *fakeHost) Glob(_ context.Context, dir, pattern string, hidden bool) ([]string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for p := range h.files {
		if path.Dir(p) != dir {
			continue
		}
		name := path.Base(p)
		if !hidden && strings.HasPrefix(name, ".") {
			continue
		}
		if ok, _ := path.Match(pattern, name); ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (h *fakeHost) LookPath(_ context.Context, name string, _ []string) (string, error) {
	if _, ok := h.progs[name]; ok {
		return "/bin/" + name, nil
	}
	return "", &fs.PathError{Op: "lookpath", Path: name, Err: fs.ErrNotExist}
}

func (h *fakeHost) Run(ctx context.Context, s *host.Spawn) (*host.Result, error) {
	h.mu.Lock()
	h.spawns = append(h.spawns, s)
	prog := h.progs[path.Base(s.Argv[0])]
	h.mu.Unlock()
	var in []byte
	if s.Stdin != nil {
		var err error
		if in, err = io.ReadAll(s.Stdin); err != nil {
			return nil, err
		}
	}
	out, errOut, status := prog(s, in)
	if s.StreamOut != nil {
		_, _ = io.WriteString(s.StreamOut, out)
	}
	if s.StreamErr != nil {
		_, _ = io.WriteString(s.StreamErr, errOut)
	}
	return &host.Result{Status: &status, Stdout: []byte(out), Stderr: []byte(errOut), Pid: 42}, nil
}

func (h *fakeHost) Environ(context.Context) ([]string, error) { return h.env, nil }
func (h *fakeHost) Now() time.Time                            { return h.now }
func (h *fakeHost) Clock(context.Context) (time.Time, error)  { return h.now, nil }

type fakeInfo struct {
	name string
	size int64
	dir  bool
}

func (f fakeInfo) Name() string { return f.name }
func (f fakeInfo) Size() int64  { return f.size }
func (f fakeInfo) Mode() fs.FileMode {
	if f.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return f.dir }
func (f fakeInfo) Sys() any           { return nil }

// session is a test interpreter over a fake host with captured output.
type session struct {
	t      *testing.T
	h      *fakeHost
	in     *Interp
	stdout bytes.Buffer
	stderr bytes.Buffer
}

func newSession(t *testing.T) *session {
	t.Helper()
	s := &session{t: t, h: newFakeHost()}
	in, err := New(Options{Registry: testRegistry, Host: s.h, Dir: "/work", Stdout: &s.stdout, Stderr: &s.stderr})
	if err != nil {
		t.Fatal(err)
	}
	s.in = in
	return s
}

func (s *session) eval(src string) (value.Value, error) {
	s.t.Helper()
	return s.in.Eval(context.Background(), src)
}

// inline evaluates src and renders the value, failing on error.
func (s *session) inline(src string) string {
	s.t.Helper()
	v, err := s.eval(src)
	if err != nil {
		s.t.Fatalf("%q: unexpected error: %v", src, err)
	}
	return value.Inline(v)
}
