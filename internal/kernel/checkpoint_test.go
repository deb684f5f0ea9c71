package kernel

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/value"
)

// TestCheckpointerKeepsWhatCanBeStored: storable bindings are kept, those
// holding a secret (however deep) or past the bound are dropped and named,
// the transcript's names are left out, a statement that changes nothing
// hands the store nothing, and one that changes a binding hands it a new
// checkpoint reusing the other bindings' encodings.
func TestCheckpointerKeepsWhatCanBeStored(t *testing.T) {
	store := &checkpointStore{pending: map[sessionKey]*checkpointFile{}, kick: make(chan struct{}, 1)}
	key := sessionKey{"uid:1", "s"}
	c := &checkpointer{store: store, limit: 4096}
	secret := &value.Secret{Name: "TOKEN"}
	list := value.NewList([]value.Value{value.Int(1), value.Int(2)})
	bs := []eval.Binding{
		{Name: "big", Value: value.Str(strings.Repeat("a", 8192))},
		{Name: "deep", Value: value.NewList([]value.Value{secret})},
		{Name: "it", Value: value.Int(3)},
		{Name: "n", Value: value.Int(41), Mutable: true},
		{Name: "tok", Value: secret},
		{Name: "x", Value: list},
	}
	env := []string{"FOO=bar"}
	c.note(key, "/work", env, bs)
	f := store.pending[key]
	if f == nil {
		t.Fatal("the first statement handed the store nothing")
	}
	var kept []string
	for _, b := range f.Bindings {
		kept = append(kept, b.Name)
	}
	if !slices.Equal(kept, []string{"n", "x"}) || !slices.Equal(f.Dropped, []string{"big", "deep", "tok"}) {
		t.Fatalf("kept %v, dropped %v", kept, f.Dropped)
	}
	if sf := f.stored(); string(sf.Dir) != "/work" || len(sf.Env) != 1 || string(sf.Env[0]) != "FOO=bar" {
		t.Errorf("stored dir %q env %q", sf.Dir, sf.Env)
	}
	// The hand-written encoding reads back as the file.
	f.Principal, f.Session = key.principal, key.name
	var back checkpointFile
	if err := json.Unmarshal(f.appendJSON(nil), &back); err != nil {
		t.Fatalf("checkpoint encoding: %v", err)
	}
	if back.V != checkpointVersion || back.Principal != "uid:1" || back.Session != "s" || string(back.Dir) != "/work" ||
		len(back.Env) != 1 || string(back.Env[0]) != "FOO=bar" || len(back.Bindings) != 2 || !back.Bindings[0].Mutable ||
		string(back.Bindings[1].Value) != string(f.Bindings[1].Value) || !slices.Equal(back.Dropped, f.Dropped) {
		t.Errorf("checkpoint read back = %+v", back)
	}
	delete(store.pending, key)
	c.note(key, "/work", slices.Clone(env), slices.Clone(bs))
	if _, ok := store.pending[key]; ok {
		t.Fatal("a statement that changed nothing wrote a checkpoint")
	}
	xWire := f.Bindings[1].Value
	bs[3].Value = value.Int(42)
	c.note(key, "/work", env, bs)
	f = store.pending[key]
	if f == nil || string(f.Bindings[0].Value) != `{"$":"int","v":42}` {
		t.Fatalf("after n changed: %+v", f)
	}
	if &f.Bindings[1].Value[0] != &xWire[0] {
		t.Error("the unchanged binding was encoded again")
	}
}
