package eval

import (
	"context"
	"github.com/shoalgo/shoal/internal/evaltest"
	"io/fs"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/namespaces"
	"github.com/shoalgo/shoal/internal/value"
)

// TestConfigTranscript runs testdata/config.txt against a session given
// the snapshot LoadConfig makes of a user file, a project file and one
// override.
func TestConfigTranscript(t *testing.T) {
	files := map[string]string{
		"/home/u/.config/shoal/shoal.toml": "version = 1\n[history]\nmax_entries = 500\ndedup = true\n[aliases]\ngs = \"git status\"\n",
		"/p/.shoal.toml":                   "[history]\nmax_entries = 7\n",
	}
	env := map[string]string{"HOME": "/home/u", "SHOAL_EDITOR_MODE": "vi"}
	snap, _, err := namespaces.LoadConfig(namespaces.ConfigSource{
		Cwd:    "/p/src",
		Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		ReadFile: func(name string, _ int64) ([]byte, error) {
			if s, ok := files[name]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.DenyAll), Dir: t.TempDir(), Env: []string{}, Config: snap})
	if err != nil {
		t.Fatal(err)
	}
	if n := evaltest.RunFile(t, in, "testdata/config.txt", nil, nil); n < 15 {
		t.Fatalf("only %d cases read", n)
	}
}

// TestConfigWithoutInjection: a session given no snapshot has an empty
// config, and each session reads its own snapshot.
func TestConfigWithoutInjection(t *testing.T) {
	bare, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.DenyAll), Dir: t.TempDir(), Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.DenyAll), Dir: t.TempDir(), Env: []string{},
		Config: value.NewRecord([]string{"render"}, []value.Value{value.Str("x")})})
	if err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]string{`config.all()`: "{}", `config.render`: "null", `config.get("render")`: "null"} {
		v, err := bare.Eval(context.Background(), src)
		if err != nil || value.Inline(v) != want {
			t.Errorf("bare %s = %v, %v; want %s", src, v, err, want)
		}
	}
	v, err := other.Eval(context.Background(), `config.render`)
	if err != nil || value.Inline(v) != `"x"` {
		t.Errorf("injected config.render = %v, %v", v, err)
	}
}
