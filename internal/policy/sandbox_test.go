package policy

import (
	"slices"
	"testing"

	"github.com/shoalgo/shoal/internal/sandbox"
)

func TestSandboxLowering(t *testing.T) {
	cases := []struct {
		name string
		doc  string
		want sandbox.Rules
	}{
		{"roots", `fs.read = ["/usr/**", "/work/**", "/etc/hosts", "/data/*.csv"]
fs.write = ["/work/**", "/tmp/x/out/*.json"]
fs.delete = ["/work/tmp/**", "/scratch/**"]
net_connect = ["*.example.com:443", "h:80", "k:443"]
net_listen = [9000]
hermetic = true`, sandbox.Rules{
			ReadOnly:   []string{"/data", "/etc/hosts", "/usr"},
			ReadWrite:  []string{"/scratch", "/tmp/x/out", "/work"},
			ConnectTCP: []uint16{80, 443},
			BindTCP:    []uint16{9000},
			RestrictFS: true, RestrictNet: true, Hermetic: true,
		}},
		{"no grants", ``, sandbox.Rules{RestrictFS: true, RestrictNet: true}},
		{"read everything, write one", `fs.read = ["/**"]
fs.write = ["/work/**"]`, sandbox.Rules{ReadOnly: []string{"/"}, ReadWrite: []string{"/work"}, RestrictFS: true, RestrictNet: true}},
		{"write everything", `fs.write = ["/**"]
fs.read = ["/usr/**"]`, sandbox.Rules{RestrictFS: false, RestrictNet: true}},
		{"rootless globs dropped", `fs.read = ["/*/secret", "/**/x", "/"]`, sandbox.Rules{RestrictFS: true, RestrictNet: true}},
		{"any port", `net = ["api.example.com:*", "h:80"]`, sandbox.Rules{RestrictFS: true, RestrictNet: false}},
		{"star star", `net = ["*:*"]`, sandbox.Rules{RestrictFS: true, RestrictNet: false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse([]byte("[principal.\"a\"]\n"+c.doc+"\n"), "/home/u")
			if err != nil {
				t.Fatal(err)
			}
			got := p.For("a", false).Sandbox("/home/u")
			if !rulesEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
	if r := Everything("o").Sandbox("/h"); r.RestrictFS || r.RestrictNet {
		t.Errorf("owner sandbox restricts: %+v", r)
	}
	if r := Nothing("x").Sandbox("/h"); !r.RestrictFS || !r.RestrictNet || len(r.ReadOnly)+len(r.ReadWrite)+len(r.ConnectTCP) != 0 {
		t.Errorf("unknown principal sandbox: %+v", r)
	}
}

func rulesEqual(a, b sandbox.Rules) bool {
	return slices.Equal(a.ReadOnly, b.ReadOnly) && slices.Equal(a.ReadWrite, b.ReadWrite) &&
		slices.Equal(a.ConnectTCP, b.ConnectTCP) && slices.Equal(a.BindTCP, b.BindTCP) &&
		a.RestrictFS == b.RestrictFS && a.RestrictNet == b.RestrictNet && a.Hermetic == b.Hermetic
}
