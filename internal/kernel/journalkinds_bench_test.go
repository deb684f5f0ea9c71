package kernel

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
)

// BenchmarkSpawnRowEffects is the effects part of an owner spawn's journal
// row, in process: the plan of `^/bin/true` rendered to JSON (json),
// its undo record ({"steps":[],"lost":"a program ran"}, undo), and its
// start and finish rows committed (rows), the way round 15 found it
// (before: json.Marshal, the kinds decoded from the JSON by Begin and
// again by Finish) and as the kernel does it now (after:
// appendEffectsJSON and appendUndoJSON, the kinds given from the plan):
//
//	go test -run '^$' -bench SpawnRowEffects -benchmem -count 5 ./internal/kernel/
func BenchmarkSpawnRowEffects(b *testing.B) {
	prog, err := syntax.Parse(`^/bin/true`, syntax.ParseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	effs := leash.Derive(prog, leash.Env{Dir: "/tmp", Home: "/root"}).Effects
	if len(effs) == 0 {
		b.Fatal("no effects")
	}
	for _, after := range []bool{false, true} {
		name := "before"
		if after {
			name = "after"
		}
		b.Run(name+"/json", func(b *testing.B) {
			for b.Loop() {
				if after {
					_ = journalEffects(effs)
					_, _ = planKinds(effs)
				} else {
					_, _ = json.Marshal(effs)
				}
			}
		})
		b.Run(name+"/undo", func(b *testing.B) {
			rec := eval.UndoRecord{Steps: []eval.UndoStep{}, Lost: "a program ran"}
			for b.Loop() {
				if after {
					_, _ = appendUndoJSON(make([]byte, 0, 64), rec)
				} else {
					_, _ = json.Marshal(rec)
				}
			}
		})
		b.Run(name+"/rows", func(b *testing.B) {
			db, err := journal.Open(filepath.Join(b.TempDir(), "journal.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			for b.Loop() {
				e := journal.Entry{Session: "bench", Principal: "uid:0", Cwd: "/tmp", Src: `^/bin/true`, Verdict: VerdictAllow}
				if after {
					e.Effects = journalEffects(effs)
					e.EffectKinds, e.KindsGiven = planKinds(effs)
				} else {
					e.Effects, _ = json.Marshal(effs)
				}
				id, err := db.Begin(&e)
				if err != nil {
					b.Fatal(err)
				}
				fin := e
				fin.OK = true
				if err := db.Finish(id, &fin); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
