package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/shoalgo/shoal/internal/namespaces"
	"github.com/shoalgo/shoal/internal/value"
)

// TestConfigNamespaceInjected runs the built shoal with -c, a script and
// stdin in a project below a temporary HOME: the config namespace shows the
// user file merged with the nearest project .shoal.toml (once the person
// trusted its directory; before, the layer is skipped with a notice) and
// the SHOAL_* overrides, and a malformed file stops startup with its name
// and line.
func TestConfigNamespaceInjected(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "shoal")
	if out, err := goBuild("-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := t.TempDir()
	xdg := filepath.Join(home, "xdg")
	write := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(xdg, "shoal", "shoal.toml"), "version = 1\n[history]\nmax_entries = 500\ndedup = false\n[aliases]\ngs = \"git status\"\n")
	project := filepath.Join(home, "proj")
	write(filepath.Join(project, ".shoal.toml"), "[history]\nmax_entries = 7\n[render]\necho = \"all\"\n")
	sub := filepath.Join(project, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(home, "cfg.shl")
	write(script, "config.get(\"history\").max_entries\n")
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + xdg, "PATH=" + os.Getenv("PATH"), "SHOAL_EDITOR_MODE=vi"}
	run := func(dir, stdin string, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	// Untrusted: the project layer is not applied, and one line says so.
	out, errs, code := run(sub, "", "-c", "config.history.max_entries")
	if code != 0 || out != "500\n" || strings.Count(errs, project+" has a .shoal.toml that is not trusted; run 'shoal trust' to use it") != 1 {
		t.Fatalf("untrusted project layer: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, errs, code := run(project, "", "trust"); code != 0 {
		t.Fatalf("shoal trust: exit %d, %s", code, errs)
	}
	for _, c := range []struct {
		name, dir, stdin, want string
		args                   []string
	}{
		{name: "-c field", dir: sub, args: []string{"-c", "config.history.max_entries"}, want: "7\n"},
		{name: "-c merged table", dir: sub, args: []string{"-c", "config.history"}, want: "dedup"},
		{name: "-c get", dir: sub, args: []string{"-c", `config.get("aliases").gs`}, want: "git status\n"},
		{name: "-c override", dir: sub, args: []string{"-c", "config.editor.mode"}, want: "vi\n"},
		{name: "-c absent", dir: sub, args: []string{"-c", `[config.nope, config.get("nope"), config.all]`}, want: "null"},
		{name: "defaults under the files", dir: home, args: []string{"-c", `config.get("version")`}, want: "1\n"},
		{name: "outside the project", dir: home, args: []string{"-c", "config.history.max_entries"}, want: "500\n"},
		{name: "script", dir: sub, args: []string{script}, want: "7\n"},
		{name: "stdin", dir: sub, stdin: "config.render.echo", want: "all\n"},
	} {
		out, errs, code := run(c.dir, c.stdin, c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, stdout %q (stderr %q), want %q", c.name, code, out, errs, c.want)
		}
	}
	write(filepath.Join(project, "a", ".shoal.toml"), "[history\nmax = 1\n")
	if _, errs, code := run(filepath.Join(project, "a"), "", "trust"); code != 0 {
		t.Fatalf("shoal trust a: exit %d, %s", code, errs)
	}
	out, errs, code = run(sub, "", "-c", "1")
	if code != 2 || out != "" || !strings.Contains(errs, filepath.Join(project, "a", ".shoal.toml")+":1:9: expected ']' to close table name") {
		t.Fatalf("malformed project file: exit %d, stdout %q, stderr %q; want 2 naming the file, line and column", code, out, errs)
	}
}

// TestDefaultsSnapshot: typed defaults become the snapshot's lowest layer,
// nested tables and lists included, in field order.
func TestDefaultsSnapshot(t *testing.T) {
	type history struct {
		Enabled    bool     `toml:"enabled"`
		MaxEntries int      `toml:"max_entries"`
		Ignore     []string `toml:"ignore"`
	}
	rec, err := defaultsSnapshot(struct {
		Version int     `toml:"version"`
		History history `toml:"history"`
	}{1, history{true, 10000, []string{"secret *"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := value.Inline(rec); got != `{version: 1, history: {enabled: true, max_entries: 10000, ignore: ["secret *"]}}` {
		t.Fatalf("snapshot = %s", got)
	}
	if rec, err := defaultsSnapshot(configDefaults); err != nil || value.Inline(rec) != "{version: 1}" {
		t.Fatalf("configDefaults = %v, %v", rec, err)
	}
}

// TestDefaultsSnapshotIsTheTOML: the snapshot is what the defaults' TOML
// encoding decodes to, tables after plain keys as the encoder writes them,
// for the shipped defaults and for every kind defaults may use.
func TestDefaultsSnapshotIsTheTOML(t *testing.T) {
	type inner struct {
		Deep struct {
			On bool `toml:"on"`
		} `toml:"deep"`
		Words []string `toml:"words"`
	}
	for _, v := range []any{
		configDefaults,
		struct {
			Table  inner     `toml:"table"`
			Name   string    `toml:"name"`
			N      int64     `toml:"n"`
			F      float64   `toml:"f"`
			Ok     bool      `toml:"ok"`
			Nums   []int     `toml:"nums"`
			Nested [][]int   `toml:"nested"`
			Floats []float64 `toml:"floats"`
			Plain  int
			skip   int
		}{Table: inner{Words: []string{"a", "b"}}, Name: "x", N: -3, F: 1.5, Ok: true, Nums: []int{1, 2},
			Nested: [][]int{{1}, {2, 3}}, Floats: []float64{0.25}, Plain: 7},
	} {
		var b strings.Builder
		if err := toml.NewEncoder(&b).Encode(v); err != nil {
			t.Fatal(err)
		}
		want, err := namespaces.DecodeConfig("defaults", []byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		got, err := defaultsSnapshot(v)
		if err != nil {
			t.Fatal(err)
		}
		if value.Inline(got) != value.Inline(want) {
			t.Errorf("snapshot %s, TOML round trip %s", value.Inline(got), value.Inline(want))
		}
	}
	if _, err := defaultsSnapshot(struct{ C chan int }{}); err == nil {
		t.Error("a channel default was accepted")
	}
}

// TestPageName: the file a pager shows is named after what is paged, on
// one line, with no slash, bounded, never an option or a dot name.
func TestPageName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ls -la /etc", "ls -la \u2215etc"},
		{"(1..300)\n  .collect()", "(1..300) .collect()"},
		{"", "shoal"},
		{" . ", "shoal"},
		{"..", "shoal"},
		{"-x", "./-x"},
		{"+5", "./+5"},
		{"a\x1b[31mb", "a [31mb"},
		{strings.Repeat("é", 100), strings.Repeat("é", 40)},
	} {
		if got := pageName(c.in); got != c.want {
			t.Errorf("pageName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
