package eval

import (
	"bytes"
	"github.com/shoalgo/shoal/internal/evaltest"
	"os/exec"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/shoalgo/shoal/internal/adapters"
	"github.com/shoalgo/shoal/internal/host"
)

// adapterFakes are the programs testdata/adapters.txt runs on the fake
// host: each prints what the real tool prints for the argv its adapter
// pins, and echoes any other argv so a case can see what was spawned.
func adapterFakes(h *fakeHost) {
	argvOf := func(s *host.Spawn) string { return strings.Join(s.Argv[1:], " ") }
	h.progs["git"] = func(s *host.Spawn, _ []byte) (string, string, int) {
		switch a := argvOf(s); {
		case a == "status --porcelain=v2 --branch":
			return "# branch.oid c0ffee\n# branch.head main\n# branch.upstream origin/main\n# branch.ab +2 -1\n1 .M N... 100644 100644 100644 aaa bbb src/main.go\n1 A. N... 000000 100644 100644 000 ccc docs/new.md\n? notes.txt\n", "", 0
		case strings.HasPrefix(a, "log -z --no-color --format=%H%x00%an%x00%aI%x00%s"):
			return "c0ffee\x00Ada\x002026-07-09T14:00:00+00:00\x00first\x00beef\x00Bo\x002026-07-10T09:30:00+00:00\x00second\x00", "", 0
		case a == "diff --no-color":
			return "", "", 1 // differences found: accepted by ok_codes
		default:
			return a + "\n", "", 0
		}
	}
	h.progs["cargo"] = func(s *host.Spawn, _ []byte) (string, string, int) {
		if argvOf(s) == "metadata --format-version 1 --no-deps" {
			return `{"packages": [{"name": "demo", "version": "0.1.0"}], "version": 1}`, "", 0
		}
		return argvOf(s) + "\n", "", 0
	}
	h.progs["ps"] = func(s *host.Spawn, _ []byte) (string, string, int) {
		return "  PID  PPID USER     %CPU %MEM COMMAND\n    1     0 root      0.1  0.2 /sbin/init splash\n  420     1 ada      57.5  3.0 cargo build --release\n  421     1 bo        2.0  1.5 vim notes.md\n", "", 0
	}
	h.progs["df"] = func(s *host.Spawn, _ []byte) (string, string, int) {
		return "Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/vda 1000000 900000 100000 90% /\ntmpfs 2048 0 2048 0% /dev/shm\n", "", 0
	}
	h.progs["rg"] = func(s *host.Spawn, _ []byte) (string, string, int) {
		if strings.Contains(argvOf(s), "nothing") {
			return "", "", 1
		}
		return `{"type":"match","data":{"path":{"text":"a.go"},"line_number":3}}` + "\n", "", 0
	}
	h.progs["python3"] = func(s *host.Spawn, _ []byte) (string, string, int) { return argvOf(s) + "\n", "", 0 }
	h.progs["jq"] = func(s *host.Spawn, in []byte) (string, string, int) {
		return `{"filter": "` + argvOf(s) + `", "input": ` + string(in) + `}`, "", 0
	}
	h.progs["acme"] = func(s *host.Spawn, _ []byte) (string, string, int) {
		return `[{"name": "one", "path": "/x/one"}, {"name": "two", "path": "/x/two"}]`, "", 0
	}
}

// userAdapters is a user directory beside the bundled set.
var userAdapters = fstest.MapFS{
	"acme.toml": {Data: []byte(`[cmd.acme]
effects = ["fs.read(cwd)"]

[cmd.acme.sub.list]
params = { all = "bool", limit = "int?", root = "path?" }
positional = ["root"]
flags = { short = { a = "all", n = "limit" } }
invoke = ["list", "--output=json"]
output = { parse = "json", type = "table<{name: str, path: path}>" }
effects = ["fs.read($root)"]
`)},
}

// TestAdaptersTranscript runs testdata/adapters.txt: the bundled catalog
// layered with a user file, on the fake host, so every program the cases
// start is a Go function and every spawn is recorded.
func TestAdaptersTranscript(t *testing.T) {
	h := newFakeHost()
	adapterFakes(h)
	cat := adapters.Bundled().Layer(userAdapters, ".")
	if len(cat.Warnings()) != 0 {
		t.Fatalf("catalog warnings: %v", cat.Warnings())
	}
	var out bytes.Buffer
	in, err := New(Options{Registry: testRegistry, Host: h, Dir: "/work", Stdout: &out, Adapters: cat})
	if err != nil {
		t.Fatal(err)
	}
	if n := evaltest.RunFile(t, in, "testdata/adapters.txt", &out, nil); n < 20 {
		t.Fatalf("only %d cases", n)
	}
}

// TestAdapterRefusesBeforeSpawn: a call its declaration refuses starts
// nothing, not even a PATH lookup's program.
func TestAdapterRefusesBeforeSpawn(t *testing.T) {
	h := newFakeHost()
	adapterFakes(h)
	in, err := New(Options{Registry: testRegistry, Host: h, Dir: "/work", Adapters: adapters.Bundled()})
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{`cargo build --jobs "many"`, `cargo build --release=maybe`, `git log -n x`, `git stash_list --frobnicate`} {
		if _, err := in.Eval(t.Context(), src); err == nil || !strings.Contains(err.Error(), "arg_error") {
			t.Errorf("%s: %v, want arg_error", src, err)
		}
	}
	if len(h.spawns) != 0 {
		t.Fatalf("refused calls spawned %d programs: %v", len(h.spawns), h.spawns[0].Argv)
	}
	if _, err := in.Eval(t.Context(), `cargo build --jobs 8`); err != nil {
		t.Fatal(err)
	}
	if len(h.spawns) != 1 || strings.Join(h.spawns[0].Argv, " ") != "/bin/cargo build --jobs 8" {
		t.Fatalf("spawns %v", h.spawns)
	}
}

// TestAdaptersWithRealGit runs testdata/adapters_git.txt against the real
// git in a temporary repository (skipped without git).
func TestAdaptersWithRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir + "/.config", "PATH=/usr/local/bin:/usr/bin:/bin",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_DATE=2026-07-09T14:00:00Z", "GIT_COMMITTER_DATE=2026-07-09T14:00:00Z"}
	var out bytes.Buffer
	in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: dir, Env: env, Stdout: &out, Adapters: adapters.Bundled()})
	if err != nil {
		t.Fatal(err)
	}
	if n := evaltest.RunFile(t, in, "testdata/adapters_git.txt", &out, nil); n < 8 {
		t.Fatalf("only %d cases", n)
	}
}
