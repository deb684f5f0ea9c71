package journal

import (
	"encoding/json"
	"testing"
)

// TestReleasePage: a page handed back is reused by later queries, whose
// answers are the same as from fresh pages: nothing of the page's former
// rows shows through, and a page still held is never reused.
func TestReleasePage(t *testing.T) {
	d := openTemp(t)
	fixture(t, d, 120)
	queries := []Query{{Limit: 50}, {Principal: "bob", Limit: 50}, {Effects: []string{"fs_write"}, Limit: 40}, {Session: "s3", Limit: 7}}
	want := make([]string, len(queries))
	for i, q := range queries {
		es, _, err := d.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(es)
		want[i] = string(b) // these pages are never handed back
	}
	for round := range 3 {
		for i, q := range queries {
			es, _, err := d.Query(q)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(es)
			if string(b) != want[i] {
				t.Fatalf("round %d, query %d: a reused page answers\n%s\nwant\n%s", round, i, b, want[i])
			}
			ReleasePage(es)
		}
	}
	ReleasePage(nil)
	ReleasePage(make([]Entry, 0, MaxQueryLimit+2)) // too big to keep: dropped
}
