package stdlib

import (
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// TestHostNamespacesListed: completion and introspection see http and
// secret with their members, as programs do.
func TestHostNamespacesListed(t *testing.T) {
	r := Registry()
	names := strings.Join(r.NamespaceNames(), " ")
	for _, n := range []string{"http", "secret", "os", "config", "json"} {
		if !strings.Contains(" "+names+" ", " "+n+" ") {
			t.Errorf("NamespaceNames() = %s, lacks %s", names, n)
		}
	}
	if got := strings.Join(r.NamespaceMembers("http"), " "); got != "delete get post put" {
		t.Errorf("http members = %q", got)
	}
	if got := strings.Join(r.NamespaceMembers("secret"), " "); got != "get" {
		t.Errorf("secret members = %q", got)
	}
}

// TestHelpForHostNamespaces: `help` answers for a library namespace and
// its members, and for a library method, from their entries.
func TestHelpForHostNamespaces(t *testing.T) {
	in, err := eval.New(eval.Options{Registry: Registry(), Host: host.NewOS(host.AllowAll), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]string{
		"help os.hostname": "host name",
		"help http":        "members:",
		"help secret.get":  "secret_use",
		"help pick":        "works on: list, table",
	} {
		v, err := in.Eval(t.Context(), src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if txt, ok := v.(value.Str); !ok || !strings.Contains(string(txt), want) {
			t.Errorf("%s = %v, want it to contain %q", src, v, want)
		}
	}
}
