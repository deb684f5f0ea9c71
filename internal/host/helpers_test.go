package host

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// recorder is a test Authorizer that records every op and refuses those
// for which deny returns true.
type recorder struct {
	mu   sync.Mutex
	ops  []Op
	deny func(Op) bool
}

func (r *recorder) Authorize(_ context.Context, op Op) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops = append(r.ops, op)
	if r.deny != nil && r.deny(op) {
		return Denied(op, "test")
	}
	return nil
}

func (r *recorder) effects() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, op := range r.ops {
		out = append(out, string(op.Effect)+" "+op.Target)
	}
	return out
}

// prog returns the absolute path of a program or skips the test.
func prog(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not available: %v", name, err)
	}
	p, err = filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writeTree creates files (content = name) and directories (trailing "/").
func writeTree(t *testing.T, root string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(root, n)
		if strings.HasSuffix(n, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot renders a tree as "path mode content" lines, symlinks as
// "path mode -> target".
func snapshot(t *testing.T, root string) string {
	t.Helper()
	return walkSnapshot(t, root, false)
}

// stampedSnapshot is snapshot with each entry's modification time, so a
// changed timestamp shows too.
func stampedSnapshot(t *testing.T, root string) string {
	t.Helper()
	return walkSnapshot(t, root, true)
}

func walkSnapshot(t *testing.T, root string, stamps bool) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		b.WriteString(rel + " " + info.Mode().String())
		if stamps {
			b.WriteString(" " + strconv.FormatInt(info.ModTime().UnixNano(), 10))
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			b.WriteString(" -> " + target)
		case d.Type().IsRegular():
			data, _ := os.ReadFile(p)
			b.WriteString(" " + string(data))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
