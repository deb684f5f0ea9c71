package eval

import (
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// TestAudit: eval's own registry passes Audit, and Audit names each kind
// of incomplete entry (so the standard registry's test, which calls it,
// can fail).
func TestAudit(t *testing.T) {
	if problems := testRegistry.Audit(); len(problems) > 0 {
		t.Errorf("eval's registry: %v", problems)
	}
	p := &Part{}
	p.Builtin(&Builtin{Name: "noeffects", Help: Help{Summary: "s", Usage: "u", Example: "noeffects"}})
	p.Builtin(&Builtin{Name: "nohelp", Effects: EffNone})
	p.Func(&Func{Name: "badexample", Effects: EffNone, Call: func(*FuncCall, value.Args) (value.Value, error) { return value.Nil, nil }, Help: Help{Summary: "s", Usage: "u", Example: "(("}})
	p.Method(&Method{Kind: value.KPath, Name: "shred", Call: func(*MethodCall, value.Value, value.Args) (value.Value, error) { return value.Nil, nil }})
	p.Namespace(&Namespace{Name: "net2", Members: []*Member{{Name: "dial", Value: value.Nil}}})
	r, err := NewRegistry(p)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(r.Audit(), "\n")
	for _, want := range []string{
		"builtin noeffects has no effect declaration",
		"builtin nohelp lacks help",
		"function badexample: the example does not parse",
		"method path.shred has no effect declaration",
		"method path.shred lacks help",
		"member net2.dial has no effect declaration",
		"member net2.dial lacks help",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Audit does not say %q; it says:\n%s", want, got)
		}
	}
}
