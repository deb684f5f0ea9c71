package kernel

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/proto"
)

// kindsSources are sources whose derived plans name every kind of effect
// leash derives, one and several at once, repeated and not.
var kindsSources = []string{
	`1 + 1`,
	`exec "^/bin/true"`,
	`^/bin/true`,
	`ls /tmp`,
	`(cat /etc/hostname).feed(^wc -l)`,
	`rm /tmp/x; touch /tmp/y; cp /tmp/y /tmp/z`,
	`curl https://example.com`,
	`env.HOME`,
	`let x = 1; x + 1`,
	`cd /tmp; ls; ls; ^/bin/true`,
	`ssh host ls`,
	`eval "ls"`,
	`now()`,
}

// kindsFromJSON is the kinds the journal reads from a row's effects JSON
// when it is not given them: each element's "kind", distinct, sorted,
// without "".
func kindsFromJSON(t testing.TB, effects json.RawMessage) []string {
	t.Helper()
	if len(effects) == 0 {
		return nil
	}
	var list []struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(effects, &list); err != nil {
		t.Fatalf("effects %s: %v", effects, err)
	}
	var kinds []string
	for _, e := range list {
		if e.Kind != "" {
			kinds = append(kinds, e.Kind)
		}
	}
	slices.Sort(kinds)
	return slices.Compact(kinds)
}

// TestPlanKindsAreTheJSONKinds: the kinds a row is given from its plan are
// those its effects JSON names, for the plans of real sources, and the
// journal files such a row under the same kinds as one whose JSON it
// decodes, through Begin and Finish and through Record.
func TestPlanKindsAreTheJSONKinds(t *testing.T) {
	db, err := journal.Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seen := map[string]bool{}
	var plans [][]leash.Effect
	for _, src := range kindsSources {
		prog, err := syntax.Parse(src, syntax.ParseOptions{})
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		plans = append(plans, leash.Derive(prog, leash.Env{Dir: "/tmp", Home: "/root"}).Effects)
	}
	// Every kind, in reverse, with duplicates and an empty kind.
	var all []leash.Effect
	for _, k := range slices.Backward(proto.EffectKinds) {
		all = append(all, leash.Effect{Kind: host.Effect(k), Path: "/p"}, leash.Effect{Kind: host.Effect(k), Name: "n"})
	}
	plans = append(plans, all, nil, []leash.Effect{{Kind: ""}}, []leash.Effect{{Kind: "proc_spawn", Program: "/bin/true", Argv: []string{"/bin/true"}}})
	for i, effs := range plans {
		raw := journalEffects(effs)
		got, ok := planKinds(effs)
		want := kindsFromJSON(t, raw)
		if !ok || !slices.Equal(got, want) {
			t.Fatalf("plan %d %s: plan kinds %q, JSON kinds %q", i, raw, got, want)
		}
		for _, k := range got {
			seen[k] = true
		}
		for _, record := range []bool{false, true} {
			var read [2][]string
			for j, given := range []bool{false, true} {
				e := journal.Entry{Session: "s", Principal: "uid:0", Cwd: "/", Src: "x", Verdict: VerdictAllow, Effects: raw}
				if given {
					e.EffectKinds, e.KindsGiven = got, raw != nil
				}
				var id int64
				if record {
					id, err = db.Record(&e)
				} else if id, err = db.Begin(&e); err == nil {
					fin := e
					err = db.Finish(id, &fin)
				}
				if err != nil {
					t.Fatalf("plan %d: %v", i, err)
				}
				row, err := db.Get(id)
				if err != nil {
					t.Fatal(err)
				}
				read[j] = row.EffectKinds
			}
			if !slices.Equal(read[0], read[1]) || !slices.Equal(read[0], want) {
				t.Fatalf("plan %d (record %v): kinds decoded %q, given %q, want %q", i, record, read[0], read[1], want)
			}
		}
	}
	if len(seen) < 4 {
		t.Fatalf("the plans name only kinds %v", seen)
	}
}

// FuzzPlanKinds: for any list of effects, the kinds from the plan are the
// kinds its JSON names.
func FuzzPlanKinds(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, "x")
	f.Add([]byte{5, 5, 5}, "")
	f.Add([]byte{}, "fs_read")
	f.Fuzz(func(t *testing.T, picks []byte, odd string) {
		if len(picks) > 256 {
			picks = picks[:256]
		}
		var effs []leash.Effect
		for _, p := range picks {
			k := odd
			if int(p) < len(proto.EffectKinds) {
				k = proto.EffectKinds[p]
			}
			effs = append(effs, leash.Effect{Kind: host.Effect(k), Path: odd})
		}
		raw := journalEffects(effs)
		got, ok := planKinds(effs)
		if !ok {
			for _, e := range effs {
				if utf8.ValidString(string(e.Kind)) {
					continue
				}
				return // not given: the journal decodes the JSON
			}
			t.Fatalf("%v: kinds not given", effs)
		}
		if want := kindsFromJSON(t, raw); !slices.Equal(got, want) {
			t.Fatalf("%s: plan kinds %q, JSON kinds %q", raw, got, want)
		}
	})
}
