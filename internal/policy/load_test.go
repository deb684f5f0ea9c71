package policy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const sample = `
[principal."agent:reviewer"]
net_connect = ["github.com:443", "*.githubusercontent.com:443"]
net = ["localhost:*"]
net_listen = [8080]
proc_spawn = ["git", "rg"]
spawn = ["/usr/bin/cargo"]
env_read = ["HOME", "PATH"]
env_write = []
secret_use = ["github-token"]
secrets = ["npm"]
sys_read = ["hostname", "cpus"]
session_write = true
journal_read = true
time = true
auto_apply = "reversible"
opaque = "deny"
hermetic = true
approve = true
self_approve = true
journal_read_all = true

[principal."agent:reviewer".fs]
read = ["~/develop/shoal/**", "/usr/**"]
write = ["~/develop/shoal/**"]
delete = ["~/develop/shoal/target/**"]

[principal."agent:dotted"]
fs.read = ["/srv/data/**"]
fs.write = ["/srv/data/out/*.json"]
`

func TestParseSample(t *testing.T) {
	p, err := Parse([]byte(sample), "/home/u")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got := p.Principals(); !slices.Equal(got, []string{"agent:dotted", "agent:reviewer"}) {
		t.Fatalf("principals %v", got)
	}
	g := p.For("agent:reviewer", false)
	globs := func(gs []Glob) []string {
		var out []string
		for _, x := range gs {
			out = append(out, x.String())
		}
		return out
	}
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"fs.read", globs(g.FSRead), []string{"/home/u/develop/shoal/**", "/usr/**"}},
		{"fs.write", globs(g.FSWrite), []string{"/home/u/develop/shoal/**"}},
		{"fs.delete", globs(g.FSDelete), []string{"/home/u/develop/shoal/target/**"}},
		{"net", g.NetConnect, []NetGrant{{Host: "github.com", Port: 443}, {Host: "*.githubusercontent.com", Port: 443}, {Host: "localhost", AnyPort: true}}},
		{"listen", g.NetListen, []uint16{8080}},
		{"spawn", g.ProcSpawn, []string{"git", "rg", "/usr/bin/cargo"}},
		{"env_read", g.EnvRead, []string{"HOME", "PATH"}},
		{"secrets", g.SecretUse, []string{"github-token", "npm"}},
		{"sys_read", g.SysRead, []string{"hostname", "cpus"}},
		{"bools", []bool{g.SessionWrite, g.JournalRead, g.Time, g.Hermetic, g.Approve, g.SelfApprove, g.JournalReadAll, g.Defined}, []bool{true, true, true, true, true, true, true, true}},
		{"auto", g.AutoApply, AutoReversible},
		{"opaque", g.Opaque, OpaqueDeny},
	}
	for _, c := range checks {
		if !equalAny(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.name, c.got, c.want)
		}
	}
	d := p.For("agent:dotted", false)
	if got := globs(d.FSRead); !slices.Equal(got, []string{"/srv/data/**"}) {
		t.Errorf("dotted fs.read %v", got)
	}
	if d.AutoApply != DefaultAutoApply || d.Opaque != DefaultOpaque || d.Approve || d.ProcSpawn != nil {
		t.Errorf("dotted defaults: %+v", d)
	}
}

func equalAny(a, b any) bool {
	switch a := a.(type) {
	case []string:
		return slices.Equal(a, b.([]string))
	case []uint16:
		return slices.Equal(a, b.([]uint16))
	case []bool:
		return slices.Equal(a, b.([]bool))
	case []NetGrant:
		return slices.Equal(a, b.([]NetGrant))
	}
	return a == b
}

func TestParseErrorsCarryPositions(t *testing.T) {
	cases := []struct {
		name       string
		doc        string
		line, col  int
		msgContain string
	}{
		{"unknown field", "[principal.\"a\"]\nfs.read = []\nnet_conect = []\n", 3, 1, `unknown field`},
		{"unknown fs field", "[principal.\"a\".fs]\nreed = [\"/x\"]\n", 2, 1, `unknown field`},
		{"unknown top", "[principals.\"a\"]\n", 1, 2, `unknown field`},
		{"wrong type bool", "[principal.\"a\"]\ntime = \"yes\"\n", 2, 8, ``},
		{"wrong type list", "[principal.\"a\"]\nproc_spawn = \"git\"\n", 2, 14, ``},
		{"relative glob", "[principal.\"a\"]\nfs.read = [\"/ok\", \"src/**\"]\n", 2, 19, `must be absolute`},
		{"bad glob class", "[principal.\"a\"]\nfs.write = [\"/a/[z\"]\n", 2, 13, `bad glob`},
		{"star star inside", "[principal.\"a\"]\nfs.write = [\"/a/x**\"]\n", 2, 13, `whole path segment`},
		{"dotdot glob", "[principal.\"a\"]\nfs.delete = [\"/a/../etc\"]\n", 2, 14, `".."`},
		{"tilde user", "[principal.\"a\"]\nfs.read = [\"~bob/x\"]\n", 2, 12, `~user`},
		{"net no port", "[principal.\"a\"]\nnet_connect = [\"github.com\"]\n", 2, 16, `host:port`},
		{"net bad port", "[principal.\"a\"]\nnet = [\"github.com:99999\"]\n", 2, 8, `port`},
		{"net port zero", "[principal.\"a\"]\nnet = [\"h:0\"]\n", 2, 8, `port`},
		{"net bad v6", "[principal.\"a\"]\nnet = [\"[zz]:443\"]\n", 2, 8, `host:port`},
		{"auto_apply", "[principal.\"a\"]\nauto_apply = \"always\"\n", 2, 14, `auto_apply`},
		{"opaque", "[principal.\"a\"]\nopaque = \"maybe\"\n", 2, 10, `opaque`},
		{"hash spawn", "[principal.\"a\"]\nproc_spawn = [\"sha256:0123456789abcdef0123456789abcdef\"]\n", 2, 15, `content-hash`},
		{"relative spawn", "[principal.\"a\"]\nproc_spawn = [\"bin/git\"]\n", 2, 15, `absolute`},
		{"env wildcard", "[principal.\"a\"]\nenv_read = [\"AWS_*\"]\n", 2, 13, `wildcard`},
		{"env equals", "[principal.\"a\"]\nenv_write = [\"A=B\"]\n", 2, 14, `=`},
		{"fact", "[principal.\"a\"]\nsys_read = [\"kernel\"]\n", 2, 13, `sys_read`},
		{"listen range", "[principal.\"a\"]\nnet_listen = [70000]\n", 2, 15, ``},
		{"syntax", "[principal.\"a\"\n", 1, 15, ``},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc), "/home/u")
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("want *LoadError, got %T %v", err, err)
			}
			if le.Line != c.line || le.Col != c.col {
				t.Errorf("position %d:%d, want %d:%d (%v)", le.Line, le.Col, c.line, c.col, err)
			}
			if !strings.Contains(le.Msg, c.msgContain) {
				t.Errorf("message %q does not mention %q", le.Msg, c.msgContain)
			}
		})
	}
}

func TestParseTildeNeedsHome(t *testing.T) {
	_, err := Parse([]byte("[principal.\"a\"]\nfs.read = [\"~/x\"]\n"), "")
	var le *LoadError
	if !errors.As(err, &le) || !strings.Contains(le.Msg, "home") {
		t.Fatalf("got %v", err)
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "leash.toml")
	if err := os.WriteFile(f, []byte(sample), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Load(f, "/home/u")
	if err != nil || p.Path() != f || len(p.Principals()) != 2 {
		t.Fatalf("Load: %v %v", p, err)
	}
	_, err = Load(filepath.Join(dir, "missing.toml"), "/home/u")
	var le *LoadError
	if !errors.As(err, &le) || le.Path == "" {
		t.Fatalf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[principal.\"a\"]\nbogus = 1\n"), 0o600)
	_, err = Load(bad, "/home/u")
	if !errors.As(err, &le) || le.Path != bad || le.Line != 2 || !strings.HasPrefix(err.Error(), "policy "+bad+":2:1: ") {
		t.Fatalf("bad file: %v", err)
	}
	big := filepath.Join(dir, "big.toml")
	os.WriteFile(big, make([]byte, MaxFileBytes+1), 0o600)
	if _, err = Load(big, "/home/u"); !errors.As(err, &le) {
		t.Fatalf("big file: %v", err)
	}
}
