package kernel_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/adapters"
	"github.com/shoalgo/shoal/internal/kernel"
	"github.com/shoalgo/shoal/proto"
)

// probeAdapters is a user adapter directory for the kernel tests: probe
// writes a marker file when it runs (so a test sees whether it started),
// facts prints key=value lines its adapter parses into a record.
var probeAdapters = fstest.MapFS{
	"probe.toml": {Data: []byte(`[cmd.probe]
bin = "sh"
params = { jobs = "int?", out = "path?" }
invoke = ["-c", "echo ran > marker", "probe"]
effects = ["fs.write(cwd/marker)", "fs.write($out)"]

[cmd.facts]
bin = "printf"
invoke = ["name=api\nready=yes\n"]
output = { parse = "kv", type = "record" }
effects = ["env.read(*)"]
`)},
}

// TestE2EAdapters: through a real kernel, explain of an adapted command
// lists the spawn of its pinned argv and its declared effects with the
// arguments substituted, and is not opaque; an exec the declaration
// refuses raises arg_error and starts nothing; an accepted one runs and
// its parsed output reaches the client.
func TestE2EAdapters(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	cfg := kernel.Config{Version: "e2e", TokenStore: store, Dir: dir,
		Env:      []string{"HOME=" + filepath.Dir(dir), "PATH=/usr/bin:/bin"},
		Adapters: adapters.Bundled().Layer(probeAdapters, ".")}
	k := serveConfigE2E(t, sock, dir, store, cfg)
	ctx := testCtx(t)
	c := k.attached(t, "adapt", "")

	type effect struct {
		Kind    string   `json:"kind"`
		Path    string   `json:"path"`
		Program string   `json:"program"`
		Argv    []string `json:"argv"`
		Name    string   `json:"name"`
		Dynamic bool     `json:"dynamic"`
	}
	explain := func(src string) (effs []effect, opaque bool, notes []string) {
		t.Helper()
		var r struct {
			Effects []effect `json:"effects"`
			Opaque  bool     `json:"opaque"`
			Notes   []string `json:"notes"`
		}
		if err := c.Call(ctx, proto.MethodExplain, map[string]any{"src": src}, &r); err != nil {
			t.Fatalf("explain %s: %v", src, err)
		}
		return r.Effects, r.Opaque, r.Notes
	}
	render := func(effs []effect) string {
		var out []string
		for _, e := range effs {
			s := e.Kind + " " + e.Path + e.Program + e.Name
			if len(e.Argv) > 0 {
				s += " [" + strings.Join(e.Argv, " ") + "]"
			}
			out = append(out, s)
		}
		return strings.Join(out, "; ")
	}

	effs, opaque, _ := explain("cargo metadata --no_deps")
	want := "env_read PATH; proc_spawn cargo [cargo metadata --format-version 1 --no-deps]; fs_read " + dir + "; net_connect crates.io:443"
	if got := render(effs); got != want || opaque {
		t.Errorf("explain cargo metadata:\n got %s (opaque %v)\nwant %s", got, opaque, want)
	}
	effs, opaque, _ = explain("cargo build --jobs 8")
	want = "env_read PATH; proc_spawn cargo [cargo build --jobs 8]; fs_read " + dir + "; fs_write " + dir + "/target; net_connect crates.io:443"
	if got := render(effs); got != want || opaque {
		t.Errorf("explain cargo build:\n got %s (opaque %v)\nwant %s", got, opaque, want)
	}
	effs, _, notes := explain(`cargo build --jobs "many"`)
	if len(effs) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "arg_error: cargo build: --jobs expects int") {
		t.Errorf("explain of a refused call: effects %s, notes %q", render(effs), notes)
	}
	// A form the declaration does not model passes through: the same
	// program, the words as written, the declared effects, and a note.
	effs, opaque, notes = explain("git log --oneline --graph")
	want = "env_read PATH; proc_spawn git [git log --oneline --graph]; fs_read " + dir
	if got := render(effs); got != want || opaque || len(notes) != 1 || !strings.Contains(notes[0], "git passes through to the program as written: git log: unknown flag --oneline") {
		t.Errorf("explain git log --oneline:\n got %s (opaque %v, notes %q)\nwant %s and a pass-through note", got, opaque, notes, want)
	}
	effs, _, _ = explain("probe --out ./log.txt")
	want = "env_read PATH; proc_spawn sh [sh -c echo ran > marker probe --out ./log.txt]; fs_write " + dir + "/marker; fs_write " + dir + "/log.txt"
	if got := render(effs); got != want {
		t.Errorf("explain probe:\n got %s\nwant %s", got, want)
	}

	// Refused before it starts: no marker.
	err := c.Call(ctx, proto.MethodExec, map[string]any{"src": `probe --jobs "many"`}, nil)
	wantCode(t, "refused adapted call", err, proto.CodeRaised)
	var data struct {
		Code string `json:"code"`
	}
	if derr := client.ErrorData(err, &data); derr != nil || data.Code != "arg_error" || !strings.Contains(err.Error(), "--jobs expects int") {
		t.Errorf("refused call error = %v (data %+v), want the arg_error", err, data)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); !os.IsNotExist(err) {
		t.Fatalf("the refused call started its program (marker: %v)", err)
	}
	if _, err := c.Exec(ctx, client.ExecParams{Src: "probe --jobs 2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err != nil {
		t.Fatalf("the accepted call did not run: %v", err)
	}

	// Parsed output reaches the client as a value.
	res, err := c.Exec(ctx, client.ExecParams{Src: "(facts).out.ready", Position: client.PositionVal})
	if err != nil {
		t.Fatal(err)
	}
	v, err := res.Decode()
	if err != nil || v != proto.Str("yes") {
		t.Fatalf("(facts).out.ready = %#v (%s), %v", v, res.Value, err)
	}
	// ^ bypasses the adapter: printf gets no pinned template.
	res, err = c.Exec(ctx, client.ExecParams{Src: `(^facts "x").out`, Position: client.PositionVal})
	if err == nil {
		t.Fatalf("^facts ran %s, but no program named facts exists", res.Value)
	}
}

// TestE2EAdapterEffectsMeetPolicy: the verdict an exec gets before it runs
// judges the adapter's declared effects: a principal allowed to start
// curl and write in its directory is still refused a download from a host
// it is not granted, because the curl adapter declares the net_connect its
// URL names; explain of the granted download lists exactly those effects.
func TestE2EAdapterEffectsMeetPolicy(t *testing.T) {
	k := planKernel(t, `
[principal."agent:fetch"]
proc_spawn = ["curl"]
env_read = ["PATH"]
net_connect = ["allowed.example:443"]
[principal."agent:fetch".fs]
read = ["DIR", "DIR/**"]
write = ["DIR/**"]
`, nil)
	c := k.attached(t, "fetch", k.token(t, "agent:fetch"))
	ctx := testCtx(t)
	err := c.Call(ctx, proto.MethodExec, map[string]any{"src": "curl -o ./page.html https://denied.example/x"}, nil)
	wantCode(t, "download from a host the policy does not grant", err, proto.CodeLeashDenied)
	var d struct {
		Reasons []string `json:"reasons"`
	}
	if derr := client.ErrorData(err, &d); derr != nil || !strings.Contains(strings.Join(d.Reasons, "\n"), "net_connect denied.example:443") {
		t.Errorf("reasons %q (%v), want the declared net_connect", d.Reasons, derr)
	}
	var r struct {
		Effects []struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
			Path string `json:"path"`
		} `json:"effects"`
		Opaque bool `json:"opaque"`
	}
	if err := c.Call(ctx, proto.MethodExplain, map[string]any{"src": "curl -o ./page.html https://allowed.example/x"}, &r); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range r.Effects {
		kinds = append(kinds, e.Kind+" "+e.Name+e.Path)
	}
	want := "env_read PATH|proc_spawn |net_connect allowed.example:443|fs_write " + k.dir + "/page.html"
	if got := strings.Join(kinds, "|"); got != want || r.Opaque {
		t.Errorf("explain effects %s (opaque %v), want %s", got, r.Opaque, want)
	}
}
