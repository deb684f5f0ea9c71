package journal

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
)

func openTemp(t testing.TB) *DB {
	t.Helper()
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestBeginFinishGet(t *testing.T) {
	d := openTemp(t)
	st := 3
	id, err := d.Begin(&Entry{Session: "s1", Principal: "alice", StartNS: 100, Cwd: "/tmp", Src: "  ls -la | head",
		AST: json.RawMessage(`{"k":"pipe"}`), Effects: json.RawMessage(`[{"kind":"fs_read","path":"/tmp"},{"kind":"proc_spawn"},{"kind":"fs_read"}]`)})
	if err != nil {
		t.Fatal(err)
	}
	e, err := d.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if e.Finished || e.FinishNS != 0 || e.Head != "ls" || e.Kind != KindExec || e.StartNS != 100 {
		t.Fatalf("begun entry %+v", e)
	}
	if len(e.EffectKinds) != 2 || e.EffectKinds[0] != "fs_read" || e.EffectKinds[1] != "proc_spawn" {
		t.Fatalf("effect kinds %v", e.EffectKinds)
	}
	outs := []Output{{Kind: OutValue, Hash: "blake3:aa", Len: 2}, {Kind: OutStdout, Hash: "blake3:bb", Len: 10}}
	if err := d.Finish(id, &Entry{FinishNS: 200, OK: false, Status: &st, Verdict: "allowed", Outputs: outs}); err != nil {
		t.Fatal(err)
	}
	e, _ = d.Get(id)
	if !e.Finished || e.FinishNS != 200 || e.Status == nil || *e.Status != 3 || e.Verdict != "allowed" || len(e.Outputs) != 2 || e.Outputs[1] != outs[1] {
		t.Fatalf("finished entry %+v", e)
	}
	if err := d.Finish(id, &Entry{}); !errors.Is(err, ErrFinished) {
		t.Fatalf("second Finish: %v", err)
	}
	if err := d.Finish(id+100, &Entry{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Finish unknown: %v", err)
	}
	if _, err := d.Get(id + 100); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get unknown: %v", err)
	}
	for _, c := range []struct {
		hash, principal string
		want            bool
	}{{"blake3:aa", "", true}, {"blake3:aa", "alice", true}, {"blake3:aa", "bob", false}, {"blake3:cc", "", false}} {
		got, err := d.References(c.hash, c.principal)
		if err != nil || got != c.want {
			t.Errorf("References(%s, %s) = %v, %v", c.hash, c.principal, got, err)
		}
	}
}
