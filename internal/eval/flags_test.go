package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// TestBuiltinsRejectUnknownFlags: a flag a builtin does not declare is an
// arg_error naming the flag and the builtin, raised before the builtin
// touches anything; declared flags, long or short, still work.
func TestBuiltinsRejectUnknownFlags(t *testing.T) {
	refused := []struct{ src, flag, builtin string }{
		{"ls --bogus", "--bogus", "ls"},
		{"ls -R", "-R", "ls"},
		{"mkdir --frobnicate newdir", "--frobnicate", "mkdir"},
		{"mkdir -pz newdir", "-z", "mkdir"},
		{"rm -i a.txt", "-i", "rm"},
		{"rm --interactive a.txt", "--interactive", "rm"},
		{"cp --verbose a.txt b.txt", "--verbose", "cp"},
		{"mv -f a.txt b.txt", "-f", "mv"},
		{"touch --no-create a.txt", "--no-create", "touch"},
		{"cat -n a.txt", "-n", "cat"},
		{"ln -f a.txt l.txt", "-f", "ln"},
		{"which --bogus sh", "--bogus", "which"},
		{"save --append out.txt 1", "--append", "save"},
		{`mkdir("newdir", bogus: true)`, "--bogus", "mkdir"},
		{"pwd -P", "-P", "pwd"},
	}
	for _, tt := range refused {
		t.Run(tt.src, func(t *testing.T) {
			in, dir := bfsSession(t, host.NewOS(host.AllowAll), map[string]string{"a.txt": "a", "sub/": ""})
			_, err := in.Eval(context.Background(), tt.src)
			if bfsCode(err) != "arg_error" {
				t.Fatalf("err = %v, want arg_error", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.flag) || !strings.Contains(msg, tt.builtin) {
				t.Errorf("error %q does not name flag %s and builtin %s", msg, tt.flag, tt.builtin)
			}
			// Nothing touched: a.txt is still there, nothing was created.
			if _, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil {
				t.Errorf("a.txt: %v", err)
			}
			for _, n := range []string{"newdir", "b.txt", "l.txt", "out.txt"} {
				if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
					t.Errorf("%s was created", n)
				}
			}
		})
	}
	accepted := []string{
		"ls -a", "ls --all", "mkdir -p x/y", "mkdir --parents x/z", `mkdir("m", parents: true)`,
		"cp -r sub sub2", "cp -R sub sub3", "cp --recursive sub sub4", "ln -s a.txt s.txt",
		"ln --symbolic a.txt s2.txt", "which -a sh", "rm -r sub2", "rm --permanent --recursive sub3",
		"echo -n --x=1 hi", "rm -- a.txt",
	}
	in, _ := bfsSession(t, host.NewOS(host.AllowAll), map[string]string{"a.txt": "a", "sub/f": "f"})
	for _, src := range accepted {
		if _, err := in.Eval(context.Background(), src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
	v, err := in.Eval(context.Background(), "(echo -n --x=1 hi).out")
	if err != nil || !strings.Contains(value.Display(v), "-n --x=1 hi") {
		t.Errorf("echo prints its flags as text: %v, %v", v, err)
	}
}
