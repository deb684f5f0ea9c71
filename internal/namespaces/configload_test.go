package namespaces

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// memSource is a ConfigSource over an in-memory file system and
// environment.
func memSource(cwd string, files, env map[string]string) ConfigSource {
	return ConfigSource{
		Cwd: cwd,
		Getenv: func(k string) (string, bool) {
			v, ok := env[k]
			return v, ok
		},
		ReadFile: func(name string, max int64) ([]byte, error) {
			text, ok := files[name]
			if !ok {
				return nil, fs.ErrNotExist
			}
			if int64(len(text)) > max {
				return []byte(text[:max+1]), nil
			}
			return []byte(text), nil
		},
	}
}

func TestLoadConfigLayers(t *testing.T) {
	home := map[string]string{"HOME": "/home/u"}
	cases := []struct {
		name  string
		cwd   string
		files map[string]string
		env   map[string]string
		base  *value.Record
		want  string // Inline of the snapshot
		paths string // the layers merged
		err   string // a substring of the error
	}{
		{name: "nothing", cwd: "/w", env: home, want: "{}"},
		{name: "user file under HOME", cwd: "/w", env: home,
			files: map[string]string{"/home/u/.config/shoal/shoal.toml": "version = 1\n[history]\nmax_entries = 20\n"},
			want:  "{version: 1, history: {max_entries: 20}}", paths: "user:/home/u/.config/shoal/shoal.toml"},
		{name: "XDG_CONFIG_HOME wins over HOME", cwd: "/w",
			env: map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/x"},
			files: map[string]string{
				"/home/u/.config/shoal/shoal.toml": "a = 1\n",
				"/x/shoal/shoal.toml":              "a = 2\n",
			},
			want: "{a: 2}", paths: "user:/x/shoal/shoal.toml"},
		{name: "tables merge key by key, system then user then project", cwd: "/p/sub/deep", env: home,
			files: map[string]string{
				"/etc/shoal/shoal.toml":            "[history]\nenabled = false\nmax_entries = 5000\nignore = [\"a\", \"b\"]\n",
				"/home/u/.config/shoal/shoal.toml": "[history]\nmax_entries = 20000\nignore = [\"c\"]\n",
				"/p/.shoal.toml":                   "[render]\necho = \"all\"\n",
			},
			want:  `{history: {enabled: false, max_entries: 20000, ignore: ["c"]}, render: {echo: "all"}}`,
			paths: "system:/etc/shoal/shoal.toml user:/home/u/.config/shoal/shoal.toml project:/p/.shoal.toml"},
		{name: "only the nearest project file", cwd: "/p/sub", env: home,
			files: map[string]string{"/p/sub/.shoal.toml": "x = \"near\"\n", "/p/.shoal.toml": "x = \"far\"\ny = 1\n"},
			want:  `{x: "near"}`, paths: "project:/p/sub/.shoal.toml"},
		{name: "base is the lowest layer", cwd: "/w", env: home,
			base:  value.NewRecord([]string{"version", "history"}, []value.Value{value.Int(1), value.NewRecord([]string{"enabled", "max_entries"}, []value.Value{value.Bool(true), value.Int(10000)})}),
			files: map[string]string{"/w/.shoal.toml": "[history]\nmax_entries = 7\n"},
			want:  "{version: 1, history: {enabled: true, max_entries: 7}}", paths: "project:/w/.shoal.toml"},
		{name: "env overrides after files, legacy alias first", cwd: "/w",
			env:   map[string]string{"HOME": "/home/u", "SHOAL_HISTORY": "no", "SHOAL_HISTORY_ENABLED": "on", "SHOAL_HISTORY_MAX_ENTRIES": "42", "SHOAL_EDITOR_MODE": "vi"},
			files: map[string]string{"/w/.shoal.toml": "[history]\nmax_entries = 7\ndedup = true\n"},
			want:  `{history: {max_entries: 42, dedup: true, enabled: true}, editor: {mode: "vi"}}`, paths: "project:/w/.shoal.toml"},
		{name: "NO_COLOR wins over SHOAL_RENDER_COLOR", cwd: "/w",
			env:  map[string]string{"SHOAL_RENDER_COLOR": "true", "NO_COLOR": ""},
			want: "{render: {color: false}}"},
		{name: "a scalar replaced by a table", cwd: "/w", env: home,
			files: map[string]string{"/etc/shoal/shoal.toml": "render = 1\n", "/w/.shoal.toml": "[render]\nwidth = 80\n"},
			want:  "{render: {width: 80}}", paths: "system:/etc/shoal/shoal.toml project:/w/.shoal.toml"},
		{name: "malformed TOML names the file and line", cwd: "/w", env: home,
			files: map[string]string{"/w/.shoal.toml": "a = 1\nb = = 2\n"}, err: "/w/.shoal.toml: invalid TOML"},
		{name: "unsupported version", cwd: "/w", env: home,
			files: map[string]string{"/home/u/.config/shoal/shoal.toml": "version = 2\n"}, err: "unsupported config version 2 (expected 1)"},
		{name: "bad boolean override", cwd: "/w", env: map[string]string{"SHOAL_RENDER_COLOR": "YeS"}, err: "SHOAL_RENDER_COLOR: expected a boolean"},
		{name: "negative integer override", cwd: "/w", env: map[string]string{"SHOAL_RENDER_WIDTH": "-1"}, err: "SHOAL_RENDER_WIDTH: expected a non-negative integer"},
		{name: "too large", cwd: "/w", env: home,
			files: map[string]string{"/w/.shoal.toml": "# " + strings.Repeat("x", MaxConfigFileBytes)}, err: "larger than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := memSource(c.cwd, c.files, c.env)
			src.Base = c.base
			snap, layers, err := LoadConfig(src)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := value.Inline(snap); got != c.want {
				t.Errorf("snapshot = %s, want %s", got, c.want)
			}
			var ps []string
			for _, l := range layers {
				ps = append(ps, l.Kind+":"+l.Path)
			}
			if got := strings.Join(ps, " "); got != c.paths {
				t.Errorf("layers = %q, want %q", got, c.paths)
			}
		})
	}
}

// TestLoadConfigLeavesBaseAlone: merging never changes a layer it read.
func TestLoadConfigLeavesBaseAlone(t *testing.T) {
	base := value.NewRecord([]string{"history"}, []value.Value{value.NewRecord([]string{"max_entries"}, []value.Value{value.Int(1)})})
	src := memSource("/w", map[string]string{"/w/.shoal.toml": "[history]\nmax_entries = 2\n"}, nil)
	src.Base = base
	if _, _, err := LoadConfig(src); err != nil {
		t.Fatal(err)
	}
	if got := value.Inline(base); got != "{history: {max_entries: 1}}" {
		t.Fatalf("base became %s", got)
	}
}

// TestConfigPathsWalkIsBounded: the project search climbs at most
// MaxConfigWalk directories.
func TestConfigPathsWalkIsBounded(t *testing.T) {
	deep := "/" + strings.Repeat("d/", MaxConfigWalk*2)
	_, user, project := ConfigPaths(memSource(deep, nil, nil))
	if user != "" {
		t.Errorf("user file %q with neither HOME nor XDG_CONFIG_HOME", user)
	}
	if len(project) != MaxConfigWalk {
		t.Fatalf("%d project candidates, want %d", len(project), MaxConfigWalk)
	}
	_, _, project = ConfigPaths(memSource("/a/b", nil, nil))
	if got := strings.Join(project, " "); got != "/a/b/.shoal.toml /a/.shoal.toml /.shoal.toml" {
		t.Fatalf("candidates = %s", got)
	}
}

// FuzzDecodeConfig: no configuration text panics the decoder; a failure
// is an error naming the file, a success a record.
func FuzzDecodeConfig(f *testing.F) {
	for _, seed := range []string{"version = 1\n", "[history]\nmax_entries = 2\n", "version = 2", "a = = 1", "[[x]]\n", "\xff"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		rec, err := DecodeConfig("/f.toml", []byte(text))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "/f.toml: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if rec == nil {
			t.Fatal("nil record without an error")
		}
		MergeConfig(rec, rec)
	})
}
