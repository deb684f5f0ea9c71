//go:build linux

package hostile

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/proto"
)

type boundsRow struct {
	ID        int64  `json:"id"`
	TS        int64  `json:"ts"`
	Principal string `json:"principal"`
	Outputs   []struct {
		Kind string `json:"kind"`
		Hash string `json:"hash"`
	} `json:"outputs"`
}

// TestHostileJournalWindowBounds: a journal holding ten times the
// journal's bounds of rows (copies of one row of the owner's, newer by id
// than every other row, older by start time, and as many of
// agent:worker's) under the memory cap: a since window holding the few
// original rows is answered exactly and at once, off the start-time index;
// a wide window with thousands of rows outside it between its rows is
// answered in pages of exactly limit entries to its end (the kernel
// contract: limit is honoured exactly, however many rows a page walks
// past); a
// worker's blob.get of a hash ten times MaxRefScanRows rows name, none of
// them the worker's many rows, is a typed error, not a walk; the kernel
// stays up and other clients are served.
func TestHostileJournalWindowBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 80,000 rows")
	}
	_, _, flags := restartSetup(t)
	k1 := Start(t, Options{Flags: flags})
	owner := k1.Owner(t)
	ctx := Ctx(t)
	for _, src := range []string{`"first"`, `"shared value"`} {
		if _, err := owner.Exec(ctx, client.ExecParams{Src: src}); err != nil {
			t.Fatal(err)
		}
	}
	tok := k1.Token(t, "agent:worker")
	w := k1.Attach(t, "w", tok)
	if _, err := w.Exec(ctx, client.ExecParams{Src: `"worker value"`}); err != nil {
		t.Fatal(err)
	}
	var orig []boundsRow
	if err := owner.Call(ctx, "journal.query", map[string]any{"limit": 10}, &orig); err != nil || len(orig) != 3 {
		t.Fatalf("journal.query: %d rows, %v", len(orig), err)
	}
	oldest := orig[len(orig)-1].TS
	k1.Stop(t)

	// Ten times the bounds of copies of the owner's newest row (the
	// "shared value" one, naming its blob) and of the worker's.
	fill := buildFillJournal(t)
	db := filepath.Join(k1.StateDir, "journal.db")
	copies := 10 * max(journal.MaxWindowRows, journal.MaxRefScanRows)
	base := oldest - 1_000_000_000 // the copies start before every original row
	ownerPrincipal := orig[1].Principal
	for _, p := range []string{ownerPrincipal, "agent:worker"} {
		if b, err := exec.Command(fill, "rows", db, p, strconv.Itoa(copies), strconv.FormatInt(base, 10)).CombinedOutput(); err != nil {
			t.Fatalf("filljournal rows %s: %v\n%s", p, err, b)
		}
	}

	k2 := Start(t, Options{Flags: flags, StateDir: k1.StateDir})
	owner = k2.Owner(t)

	// A since window holding the three original rows: read off the
	// start-time index, whole, in one call.
	var got []boundsRow
	if err := owner.Call(ctx, "journal.query", map[string]any{"since": oldest, "limit": 100}, &got); err != nil {
		t.Fatalf("narrow window: %v", err)
	}
	if len(got) != 3 || got[0].ID != orig[0].ID || got[2].ID != orig[2].ID {
		t.Errorf("narrow window: %d rows %+v, want the 3 original rows", len(got), got)
	}

	// A wide window: the older half of each principal's copies by start
	// time (the i-th copy starts at base-i, so the higher ids of each
	// principal's copies). Newest first: the worker's half in the window,
	// then its other half (copies/2 rows outside it), then the owner's
	// half: the page that crosses walks past copies/2 rows, and still
	// holds the limit. Every page but the last holds exactly the limit.
	until := base - int64(copies/2)
	want := 2 * (copies - copies/2)
	const limit = 1000
	seen, calls, short, cursor := 0, 0, 0, int64(0)
	for calls = 1; calls < 10_000; calls++ {
		params := map[string]any{"until": until, "limit": limit}
		if cursor != 0 {
			params["cursor"] = cursor
		}
		var page []boundsRow
		if err := owner.Call(ctx, "journal.query", params, &page); err != nil {
			t.Fatalf("wide window, call %d: %v", calls, err)
		}
		if len(page) == 0 {
			break
		}
		if len(page) != limit {
			short++
		}
		// (A copy answers its original's ts, kept in its packed row;
		// the filter reads the start_ns column filljournal set.)
		seen += len(page)
		cursor = page[len(page)-1].ID
	}
	if wantCalls := (want+limit-1)/limit + 1; seen != want || calls != wantCalls || short > 1 {
		t.Errorf("wide window: %d rows in %d calls (%d pages short of the limit), want %d rows in %d calls, one page short at most", seen, calls, short, want, wantCalls)
	}
	t.Logf("wide window: %d rows in %d calls", seen, calls)

	// The worker's blob.get of the owner's shared blob: named by more
	// than MaxRefScanRows rows, the worker having more rows than that
	// too, none naming it: a typed error, not the blob and not a walk.
	var shared string
	for _, o := range orig[1].Outputs {
		if o.Kind == "value" {
			shared = o.Hash
		}
	}
	if shared == "" {
		t.Fatalf("the shared row has no value output: %+v", orig[1])
	}
	w = k2.Attach(t, "w", tok)
	var blob map[string]any
	err := w.Call(ctx, "blob.get", map[string]any{"hash": shared}, &blob)
	var data struct {
		Bound string `json:"bound"`
	}
	if code, _ := client.ErrorCode(err); code != proto.CodeInvalidParams || client.ErrorData(err, &data) != nil || data.Bound != "journal.MaxRefScanRows" {
		t.Errorf("worker blob.get of a blob it may not read: %v, %v", blob, err)
	}
	k2.Alive(t)
	var v any
	if err := k2.Owner(t).Call(ctx, "exec", map[string]any{"src": "1 + 1"}, &v); err != nil {
		t.Errorf("another client: %v", err)
	}
}
