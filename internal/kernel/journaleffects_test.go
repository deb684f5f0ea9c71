package kernel

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

// checkEffectsJSON fails unless journalEffects renders effs exactly as
// json.Marshal does.
func checkEffectsJSON(t *testing.T, effs []leash.Effect) {
	t.Helper()
	got := journalEffects(effs)
	if len(effs) == 0 {
		if got != nil {
			t.Fatalf("no effects: %s, want nil", got)
		}
		return
	}
	want, err := json.Marshal(effs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("effects %#v:\n got %s\nwant %s", effs, got, want)
	}
}

// TestEffectsJSONIsEncodingJSONs: the effects of real plans, and effects
// with every field set and strings encoding/json escapes, are rendered as
// json.Marshal renders them.
func TestEffectsJSONIsEncodingJSONs(t *testing.T) {
	for _, src := range kindsSources {
		prog, err := syntax.Parse(src, syntax.ParseOptions{})
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		checkEffectsJSON(t, leash.Derive(prog, leash.Env{Dir: "/tmp", Home: "/root"}).Effects)
	}
	odd := []string{"", "plain", `q"uote`, `back\slash`, "<html>&", "tab\there", "nl\n", "\x00\x01\x1f\x7f", "é ünï", "\u2028\u2029",
		"\xff\xfe bad", "a\xc3", "\U0001F600", "\b\f"}
	for _, s := range odd {
		checkEffectsJSON(t, []leash.Effect{
			{Kind: host.Effect(s), Path: s, Program: s, Argv: []string{s, "", s}, Name: s, Dynamic: true},
			{Kind: "proc_spawn", Program: "/bin/true", Argv: []string{"/bin/true"}},
			{Kind: "fs_read", Path: s, Dynamic: false},
			{Argv: []string{}},
		})
	}
	checkEffectsJSON(t, nil)
	checkEffectsJSON(t, []leash.Effect{})
}

// FuzzEffectsJSON: any effect renders as json.Marshal renders it.
func FuzzEffectsJSON(f *testing.F) {
	f.Add("proc_spawn", "", "/bin/true", "/bin/true", "", false, uint8(1))
	f.Add("fs_write", "/tmp/<x>&", "", "", "n\u2028", true, uint8(3))
	f.Add("\xff", "\x00", "\"", "\\", "é", true, uint8(0))
	f.Fuzz(func(t *testing.T, kind, path, program, arg, name string, dynamic bool, n uint8) {
		e := leash.Effect{Kind: host.Effect(kind), Path: path, Program: program, Name: name, Dynamic: dynamic}
		for range n % 4 {
			e.Argv = append(e.Argv, arg)
		}
		checkEffectsJSON(t, []leash.Effect{e})
		checkEffectsJSON(t, []leash.Effect{e, {Kind: "fs_read", Path: arg}, e})
	})
}
