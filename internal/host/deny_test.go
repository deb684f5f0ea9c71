package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDeniedError(t *testing.T) {
	err := Denied(Op{Effect: FSWrite, Target: "/tmp/x"}, "read-only agent")
	if got, want := err.Error(), "denied: fs_write /tmp/x (policy: read-only agent)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, ErrDenied) {
		t.Error("errors.Is(err, ErrDenied) = false")
	}
	wrapped := errors.Join(errors.New("context"), err)
	var d *DeniedError
	if !errors.As(wrapped, &d) || d.Op.Effect != FSWrite || d.Reason != "read-only agent" {
		t.Errorf("errors.As = %v, %+v", d != nil, d)
	}
	if got := (&DeniedError{Op: Op{Effect: EnvRead}}).Error(); got != "denied: env_read" {
		t.Errorf("bare Error() = %q", got)
	}
	if err := AllowAll.Authorize(context.Background(), Op{Effect: ProcSpawn}); err != nil {
		t.Errorf("AllowAll refused: %v", err)
	}
	if err := DenyAll.Authorize(context.Background(), Op{Effect: Clock}); !errors.Is(err, ErrDenied) {
		t.Errorf("DenyAll = %v", err)
	}
}

// TestDenyBeforeEffect runs every method under an authorizer that refuses
// one effect and checks the refusal comes back before anything changed.
func TestDenyBeforeEffect(t *testing.T) {
	for _, tc := range gateCases(prog(t, "sh")) {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, "a.txt", "sub/b.txt", "sub/deep/c.txt")
			before := stampedSnapshot(t, dir)
			rec := &recorder{deny: func(op Op) bool { return op.Effect == tc.deny }}
			err := tc.call(context.Background(), NewOS(rec), dir)
			var d *DeniedError
			if !errors.As(err, &d) || d.Op.Effect != tc.deny {
				t.Fatalf("err = %v, want denial of %s", err, tc.deny)
			}
			if after := stampedSnapshot(t, dir); after != before {
				t.Errorf("tree changed despite denial:\nbefore:\n%safter:\n%s", before, after)
			}
			var asked []string
			for _, e := range rec.effects() {
				asked = append(asked, relOp(dir, e))
			}
			if !slices.Equal(asked, tc.asked) {
				t.Errorf("asked %q, want %q", asked, tc.asked)
			}
		})
	}
}

// gateCase is one Host call, the effect a test refuses, and the ops the
// call asks up to that refusal.
type gateCase struct {
	name  string
	deny  Effect // the effect refused; others are allowed
	call  func(ctx context.Context, h Host, dir string) error
	asked []string // ops asked, in order, relative to dir
}

func gateCases(sh string) []gateCase {
	return []gateCase{
		{"Stat", FSRead, func(ctx context.Context, h Host, d string) error {
			_, err := h.Stat(ctx, filepath.Join(d, "a.txt"))
			return err
		}, []string{"fs_read a.txt"}},
		{"Lstat", FSRead, func(ctx context.Context, h Host, d string) error {
			_, err := h.Lstat(ctx, filepath.Join(d, "a.txt"))
			return err
		}, []string{"fs_read a.txt"}},
		{"ReadFile", FSRead, func(ctx context.Context, h Host, d string) error {
			_, err := h.ReadFile(ctx, filepath.Join(d, "a.txt"))
			return err
		}, []string{"fs_read a.txt"}},
		{"ReadDir", FSRead, func(ctx context.Context, h Host, d string) error {
			_, err := h.ReadDir(ctx, d)
			return err
		}, []string{"fs_read ."}},
		{"WriteFile", FSWrite, func(ctx context.Context, h Host, d string) error {
			return h.WriteFile(ctx, filepath.Join(d, "a.txt"), []byte("new"), false)
		}, []string{"fs_write a.txt"}},
		{"WriteFileNew", FSWrite, func(ctx context.Context, h Host, d string) error {
			return h.WriteFile(ctx, filepath.Join(d, "new.txt"), []byte("new"), true)
		}, []string{"fs_write new.txt"}},
		{"MkdirAll", FSWrite, func(ctx context.Context, h Host, d string) error {
			return h.MkdirAll(ctx, filepath.Join(d, "x/y"))
		}, []string{"fs_write x/y"}},
		{"Remove", FSDelete, func(ctx context.Context, h Host, d string) error {
			return h.Remove(ctx, filepath.Join(d, "a.txt"), false)
		}, []string{"fs_delete a.txt"}},
		{"RemoveTree", FSDelete, func(ctx context.Context, h Host, d string) error {
			return h.Remove(ctx, filepath.Join(d, "sub"), true)
		}, []string{"fs_delete sub"}},
		{"RenameSource", FSDelete, func(ctx context.Context, h Host, d string) error {
			return h.Rename(ctx, filepath.Join(d, "a.txt"), filepath.Join(d, "b.txt"))
		}, []string{"fs_delete a.txt"}},
		{"RenameDest", FSWrite, func(ctx context.Context, h Host, d string) error {
			return h.Rename(ctx, filepath.Join(d, "a.txt"), filepath.Join(d, "b.txt"))
		}, []string{"fs_delete a.txt", "fs_write b.txt"}},
		{"CopySource", FSRead, func(ctx context.Context, h Host, d string) error {
			return h.Copy(ctx, filepath.Join(d, "sub"), filepath.Join(d, "dup"), true)
		}, []string{"fs_read sub"}},
		{"CopyDest", FSWrite, func(ctx context.Context, h Host, d string) error {
			return h.Copy(ctx, filepath.Join(d, "sub"), filepath.Join(d, "dup"), true)
		}, []string{"fs_read sub", "fs_write dup"}},
		{"Symlink", FSWrite, func(ctx context.Context, h Host, d string) error {
			return h.Symlink(ctx, "a.txt", filepath.Join(d, "link"))
		}, []string{"fs_write link"}},
		{"LinkSource", FSRead, func(ctx context.Context, h Host, d string) error {
			return h.Link(ctx, filepath.Join(d, "a.txt"), filepath.Join(d, "hard"))
		}, []string{"fs_read a.txt"}},
		{"LinkDest", FSWrite, func(ctx context.Context, h Host, d string) error {
			return h.Link(ctx, filepath.Join(d, "a.txt"), filepath.Join(d, "hard"))
		}, []string{"fs_read a.txt", "fs_write hard"}},
		{"Chtimes", FSWrite, func(ctx context.Context, h Host, d string) error {
			old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
			return h.Chtimes(ctx, filepath.Join(d, "a.txt"), old, old)
		}, []string{"fs_write a.txt"}},
		{"Facts", SysRead, func(ctx context.Context, h Host, d string) error {
			_, err := h.Facts(ctx, "pid")
			return err
		}, []string{"sys_read pid"}},
		{"FactsCPUs", SysRead, func(ctx context.Context, h Host, d string) error {
			_, err := h.Facts(ctx, "cpus")
			return err
		}, []string{"sys_read cpus"}},
		{"FactsPlatform", SysRead, func(ctx context.Context, h Host, d string) error {
			_, err := h.Facts(ctx, "platform")
			return err
		}, []string{"sys_read platform"}},
		{"Clock", Clock, func(ctx context.Context, h Host, d string) error {
			_, err := h.Clock(ctx)
			return err
		}, []string{"time "}},
		{"Glob", FSRead, func(ctx context.Context, h Host, d string) error {
			_, err := h.Glob(ctx, d, "sub/**/*.txt", false)
			return err
		}, []string{"fs_read sub"}},
		{"LookPath", EnvRead, func(ctx context.Context, h Host, d string) error {
			_, err := h.LookPath(ctx, "sh", []string{"PATH=/bin:/usr/bin"})
			return err
		}, []string{"env_read PATH"}},
		{"LookPathSlash", FSRead, func(ctx context.Context, h Host, d string) error {
			_, err := h.LookPath(ctx, sh, nil)
			return err
		}, []string{"fs_read " + sh}},
		{"Environ", EnvRead, func(ctx context.Context, h Host, d string) error {
			_, err := h.Environ(ctx)
			return err
		}, []string{"env_read *"}},
		{"Run", ProcSpawn, func(ctx context.Context, h Host, d string) error {
			_, err := h.Run(ctx, &Spawn{Argv: []string{sh, "-c", "echo ran > marker"}, Dir: d})
			return err
		}, []string{"proc_spawn " + sh}},
	}
}

// relOp rewrites "effect /dir/x" as "effect x" for comparison.
func relOp(dir, op string) string {
	effect, target, ok := strings.Cut(op, " ")
	if !ok || !strings.HasPrefix(target, dir) {
		return op
	}
	rel, err := filepath.Rel(dir, target)
	if err != nil {
		return op
	}
	return effect + " " + rel
}

// TestDenyAllRunStartsNothing proves no process starts under DenyAll: the
// command would create a marker file.
func TestDenyAllRunStartsNothing(t *testing.T) {
	sh := prog(t, "sh")
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	h := NewOS(DenyAll)
	res, err := h.Run(context.Background(), &Spawn{Argv: []string{sh, "-c", "touch " + marker}, Dir: dir})
	if !errors.Is(err, ErrDenied) || res != nil {
		t.Fatalf("Run = %v, %v; want denial", res, err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("marker exists (or stat failed: %v): the process ran", err)
	}
	// Control: the same spawn under AllowAll does create it.
	if _, err := NewOS(AllowAll).Run(context.Background(), &Spawn{Argv: []string{sh, "-c", "touch " + marker}, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("control run did not create the marker: %v", err)
	}
}

func TestNilAuthorizerFailsClosed(t *testing.T) {
	_, err := NewOS(nil).Environ(context.Background())
	if !errors.Is(err, ErrDenied) {
		t.Errorf("Environ with nil authorizer = %v, want denial", err)
	}
}

func TestCancelledContextRefuses(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := &recorder{}
	dir := t.TempDir()
	err := NewOS(rec).WriteFile(ctx, filepath.Join(dir, "x"), nil, false)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if len(rec.ops) != 0 {
		t.Errorf("authorizer asked %v on a cancelled context", rec.ops)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file created: %v", err)
	}
}
