package kernel

import (
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/journal"
)

// The disk budget is 0 (unbounded) or at least MinJournalBytes, and one
// stored output at most the largest blob.
func TestRetentionLimitsChecked(t *testing.T) {
	for _, tc := range []struct {
		name      string
		max, out  int64
		wantError string
	}{
		{"defaults", 0, 0, ""},
		{"unbounded", 0, 1 << 20, ""},
		{"smallest budget", MinJournalBytes, 1 << 10, ""},
		{"budget too small", MinJournalBytes - 1, 0, "--journal-max-bytes"},
		{"largest output", 1 << 30, 64 << 20, ""},
		{"output too large", 1 << 30, 64<<20 + 1, "--journal-max-output"},
	} {
		l := DefaultLimits()
		l.JournalMaxBytes, l.JournalMaxOutput = tc.max, tc.out
		err := settleLimits(&l)
		switch {
		case tc.wantError == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantError != "" && (err == nil || !strings.Contains(err.Error(), tc.wantError)):
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.wantError)
		case tc.wantError == "" && tc.out == 0 && l.JournalMaxOutput != DefaultLimits().JournalMaxOutput:
			t.Errorf("%s: output bound %d, want the default", tc.name, l.JournalMaxOutput)
		}
	}
}

// A blob stored for a row that has not committed is spared by the
// budget's removal, which has no age grace; once the row settles without
// naming it (its commit failed) the next removal takes it, and the hash is
// no longer remembered as stored, so storing it again writes it again.
func TestRetentionRemovalSparesPending(t *testing.T) {
	j, err := openJournal(t.TempDir(), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	j.initRetention(Limits{JournalMaxBytes: MinJournalBytes, JournalMaxOutput: 8})
	r := &execRow{s: &Server{journal: j}}
	o, err := r.store("stdout", []byte("0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	if o.Len != 16 {
		t.Errorf("stored output len %d, want the whole 16", o.Len)
	}
	if data, err := j.cas.Load(o.Hash, 1<<10); err != nil || string(data) != "01234567" {
		t.Fatalf("stored blob %q, %v; want the 8-byte prefix", data, err)
	}
	if _, _, err := j.removeUnreferenced([]string{o.Hash}); err != nil {
		t.Fatal(err)
	}
	if !j.cas.Has(o.Hash) {
		t.Fatal("the removal took a blob a row about to commit holds")
	}
	r.settle()
	// Its bytes as the store counts them: the 8 of the blob, and the
	// header of its record in the small-blob pack.
	if n, freed, err := j.removeUnreferenced([]string{o.Hash}); err != nil || n != 1 || freed < 8 || freed > 8+64 {
		t.Fatalf("removed %d blobs of %d bytes, %v; want the one 8-byte blob", n, freed, err)
	}
	if j.cas.Has(o.Hash) {
		t.Fatal("an unreferenced, unheld blob survived the removal")
	}
	r2 := &execRow{s: r.s}
	if _, err := r2.store("stdout", []byte("0123456789abcdef")); err != nil {
		t.Fatal(err)
	}
	if !j.cas.Has(o.Hash) {
		t.Fatal("storing a swept output again did not write it (a stale known hash)")
	}
	u, err := r2.store("undo", []byte(`{"steps":["a long record"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if data, err := j.cas.Load(u.Hash, 1<<10); err != nil || len(data) != int(u.Len) || u.Len <= 8 {
		t.Fatalf("undo record stored as %q (len %d), %v; want it whole", data, u.Len, err)
	}
	r2.settle()
}

// TestRetentionBoundsWAL: a disk budget sets the journal's WAL bound to
// its RetentionWALShare-th (the applier truncates past it after every
// batch and prune chunk, not only when a check looks); the default budget's
// share is past MaxWALBytes, which stays the bound.
func TestRetentionBoundsWAL(t *testing.T) {
	for _, tc := range []struct{ budget, want int64 }{
		{MinJournalBytes, MinJournalBytes / RetentionWALShare},
		{DefaultLimits().JournalMaxBytes, journal.MaxWALBytes},
		{0, journal.MaxWALBytes},
	} {
		j, err := openJournal(t.TempDir(), DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		j.initRetention(Limits{JournalMaxBytes: tc.budget})
		if got := j.db.WALBound(); got != tc.want {
			t.Errorf("budget %d: WAL bound %d, want %d", tc.budget, got, tc.want)
		}
		j.close()
	}
}
