//go:build linux

package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// retentionRow is the part of a journal.query entry the budget test reads.
type retentionRow struct {
	ID      int64  `json:"id"`
	Src     string `json:"src"`
	Outputs []struct {
		Kind string `json:"kind"`
		Hash string `json:"hash"`
		Len  int64  `json:"len"`
	} `json:"outputs"`
}

func (r retentionRow) stdout() (string, int64) {
	for _, o := range r.Outputs {
		if o.Kind == "stdout" {
			return o.Hash, o.Len
		}
	}
	return "", 0
}

// stateBytes is what the state directory holds, in file bytes: the
// journal's database files and its blobs (the token store left out), and
// the database's WAL on its own.
func stateBytes(t *testing.T, dir string) (total, wal int64) {
	t.Helper()
	parts := stateParts(t, dir)
	return parts["total"], parts["wal"]
}

// The journal's disk budget through the real kernel binary under a memory
// cap: ten times the budget of command output goes through execs, and the
// state directory ends within the budget plus the documented slack; the
// kernel stays up and serves another client all along; journal.query
// answers; the blob of a pruned row is -32004 and gone from disk, the
// blob of a recent row is served, cut to --journal-max-output.
func TestHostileJournalDiskBudget(t *testing.T) {
	const (
		budget    = 2 << 20
		maxOutput = 32 << 10
		perExec   = 64 << 10 // the stdout a row keeps (kernel.MaxExecOutput)
	)
	k := Start(t, Options{MemCap: 2 << 30, Flags: []string{
		"--journal-max-bytes", fmt.Sprint(budget), "--journal-max-output", fmt.Sprint(maxOutput)}})
	ctx := Ctx(t)
	c := k.Owner(t)
	// Each exec prints about 160 KB of distinct numbers; the row keeps 64
	// KiB of it and the journal stores 32 KiB.
	exec := func(i int) {
		t.Helper()
		src := fmt.Sprintf("seq %d %d; 0", 1_000_000+i*20_000, 1_000_000+i*20_000+20_000)
		if _, err := c.Exec(ctx, client.ExecParams{Src: src}); err != nil {
			t.Fatalf("exec %d: %v", i, err)
		}
	}
	exec(0)
	var first []retentionRow
	if err := c.Call(ctx, "journal.query", map[string]any{"limit": 1}, &first); err != nil || len(first) != 1 {
		t.Fatalf("journal.query: %v %v", first, err)
	}
	firstHash, firstLen := first[0].stdout()
	if firstHash == "" || firstLen != perExec {
		t.Fatalf("first row's stdout = %q, %d bytes; want %d", firstHash, firstLen, perExec)
	}
	hb := k.Heartbeat(t)
	execs := 10*budget/maxOutput + 1
	var peak, peakWAL int64
	for i := 1; i < execs; i++ {
		exec(i)
		if i%32 == 0 {
			if n, w := stateBytes(t, k.StateDir); n > peak {
				peak, peakWAL = n, w
			}
		}
	}
	// The last check may still be running: the state settles within the
	// budget plus its documented slack (docs/kernel.md, "Journal and
	// blobs": 128 KiB of rows and outputs and one output stored since
	// the last check, a WAL of up to an eighth, the database file's free
	// pages), a quarter of the budget here.
	const slack = budget / 4
	var total, wal int64
	deadline := time.Now().Add(45 * time.Second) // past one RetentionInterval
	for {
		total, wal = stateBytes(t, k.StateDir)
		if total <= budget+slack || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	hb.Stop(t)
	k.Alive(t)
	t.Logf("%d execs, %d bytes of output stored; state directory %d bytes (WAL %d) for a budget of %d; peak while running %d (WAL %d)",
		execs, int64(execs)*maxOutput, total, wal, budget, peak, peakWAL)
	if total > budget+slack {
		t.Errorf("state directory is %d bytes (WAL %d), over the %d-byte budget plus %d", total, wal, budget, slack)
	}
	var rows []retentionRow
	if err := c.Call(ctx, "journal.query", map[string]any{"limit": 1000}, &rows); err != nil {
		t.Fatalf("journal.query after pruning: %v", err)
	}
	if len(rows) == 0 || len(rows) >= execs {
		t.Fatalf("journal.query answers %d rows after %d execs: nothing was pruned, or everything", len(rows), execs)
	}
	if rows[len(rows)-1].ID <= first[0].ID {
		t.Fatalf("the oldest row %d is still there", first[0].ID)
	}
	// A pruned row's blob: not served, typed, and gone from the store.
	var a struct {
		Len int64 `json:"len"`
		EOF bool  `json:"eof"`
	}
	err := c.Call(ctx, "blob.get", map[string]any{"hash": firstHash}, &a)
	WantCode(t, err, proto.CodeUnknownRef)
	hx := strings.TrimPrefix(firstHash, "blake3:")
	if _, err := os.Stat(filepath.Join(k.StateDir, "cas", hx[:2], hx[2:])); !os.IsNotExist(err) {
		t.Errorf("the pruned row's blob is still on disk: %v", err)
	}
	// The newest exec row's blob is served, stored cut to maxOutput while
	// its row keeps the output's whole length.
	var newest retentionRow
	for _, r := range rows {
		if strings.HasPrefix(r.Src, "seq ") {
			newest = r
			break
		}
	}
	h, n := newest.stdout()
	if err := c.Call(ctx, "blob.get", map[string]any{"hash": h}, &a); err != nil {
		t.Fatalf("blob.get of the newest row's stdout: %v", err)
	}
	if n != perExec || a.Len != maxOutput || !a.EOF {
		t.Errorf("newest row's stdout: row len %d, blob len %d (eof %v); want %d and %d", n, a.Len, a.EOF, perExec, maxOutput)
	}
}
