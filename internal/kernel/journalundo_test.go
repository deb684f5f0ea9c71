package kernel

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
)

// checkUndoJSON fails unless appendUndoJSON renders rec exactly as
// json.Marshal does.
func checkUndoJSON(t *testing.T, rec eval.UndoRecord) {
	t.Helper()
	got, err := appendUndoJSON(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("record %#v:\n got %s\nwant %s", rec, got, want)
	}
}

// TestUndoJSONIsEncodingJSONs: undo records, the spawn's lost one, steps
// with every field set and strings encoding/json escapes, are rendered as
// json.Marshal renders them.
func TestUndoJSONIsEncodingJSONs(t *testing.T) {
	checkUndoJSON(t, eval.UndoRecord{Steps: []eval.UndoStep{}, Lost: "a program ran"})
	checkUndoJSON(t, eval.UndoRecord{})
	checkUndoJSON(t, eval.UndoRecord{Steps: []eval.UndoStep{}})
	for _, s := range []string{"", "/tmp/x", `q"<&>`, "\x00\n\t\x7f", "\xff", "\u2028é"} {
		checkUndoJSON(t, eval.UndoRecord{Lost: s, Steps: []eval.UndoStep{
			{Op: "restore", Path: s, From: s, Dir: true, Size: -1, ModNS: 1<<62 + 7},
			{Op: s, Path: "/p", Size: 0},
			{Op: "remove", Path: s, Size: 12, ModNS: -3},
		}})
	}
}

// FuzzUndoJSON: any undo record renders as json.Marshal renders it.
func FuzzUndoJSON(f *testing.F) {
	f.Add("restore", "/tmp/a", "/trash/a", true, int64(3), int64(17), "", uint8(1))
	f.Add("", "", "", false, int64(0), int64(0), "a program ran", uint8(0))
	f.Add("\xff<", "\x00", "\"", true, int64(-1), int64(-9), "\u2029", uint8(3))
	f.Fuzz(func(t *testing.T, op, path, from string, dir bool, size, mod int64, lost string, n uint8) {
		rec := eval.UndoRecord{Lost: lost}
		if n%5 != 4 {
			rec.Steps = []eval.UndoStep{}
		}
		for range n % 5 % 4 {
			rec.Steps = append(rec.Steps, eval.UndoStep{Op: op, Path: path, From: from, Dir: dir, Size: size, ModNS: mod})
		}
		checkUndoJSON(t, rec)
	})
}
