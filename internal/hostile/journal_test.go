//go:build linux

package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
)

// journalRow is the part of a journal.query entry these tests read.
type journalRow struct {
	ID          int64  `json:"id"`
	Src         string `json:"src"`
	OK          bool   `json:"ok"`
	Finished    bool   `json:"finished"`
	Interrupted bool   `json:"interrupted"`
	Outputs     []struct {
		Kind string `json:"kind"`
		Hash string `json:"hash"`
		Len  int64  `json:"len"`
	} `json:"outputs"`
}

func queryRows(t *testing.T, c *client.Client) []journalRow {
	t.Helper()
	var rows []journalRow
	if err := c.Call(Ctx(t), "journal.query", map[string]any{"limit": 1000}, &rows); err != nil {
		t.Fatalf("journal.query: %v", err)
	}
	return rows
}

// Kill -9 the kernel while an exec with effects runs, after a loop of
// finished ones: a kernel started on the same state directory opens the
// journal clean, keeps every committed row and the blob of each row's
// value (small: a record in the blob store's pack), and marks the
// unfinished one.
func TestHostileJournalSurvivesKill(t *testing.T) {
	k := Start(t, Options{})
	c := k.Owner(t)
	ctx := Ctx(t)
	const done = 20
	for i := 0; i < done; i++ {
		if _, err := c.Exec(ctx, client.ExecParams{Src: "ls ."}); err != nil {
			t.Fatalf("exec %d: %v", i, err)
		}
	}
	if _, err := c.Exec(ctx, client.ExecParams{Src: "^sleep 60", Async: true}); err != nil {
		t.Fatal(err)
	}
	// The start row of the running exec is committed before it runs.
	deadline := time.Now().Add(20 * time.Second)
	for {
		rows := queryRows(t, c)
		if len(rows) == done+1 && rows[0].Src == "^sleep 60" && !rows[0].Finished {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no unfinished row for the running exec: %+v", rows)
		}
		time.Sleep(20 * time.Millisecond)
	}
	k.ExpectExit()
	if err := k.Cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-k.Exited()

	k2 := Start(t, Options{StateDir: k.StateDir})
	rows := queryRows(t, k2.Owner(t))
	if len(rows) != done+1 {
		t.Fatalf("%d rows after the restart, want %d", len(rows), done+1)
	}
	if r := rows[0]; r.Src != "^sleep 60" || r.Finished || !r.Interrupted || r.OK {
		t.Errorf("killed exec's row = %+v, want unfinished and interrupted", r)
	}
	c2 := k2.Owner(t)
	for _, r := range rows[1:] {
		if r.Src != "ls ." || !r.Finished || !r.OK || r.Interrupted {
			t.Errorf("committed row lost or changed: %+v", r)
		}
		if len(r.Outputs) == 0 {
			t.Errorf("committed row %d has no outputs", r.ID)
		}
		for _, o := range r.Outputs {
			var a struct {
				Len int64 `json:"len"`
				EOF bool  `json:"eof"`
			}
			if err := c2.Call(Ctx(t), "blob.get", map[string]any{"hash": o.Hash}, &a); err != nil || a.Len != o.Len || !a.EOF {
				t.Errorf("row %d's %s blob after kill -9: %+v, %v", r.ID, o.Kind, a, err)
			}
		}
	}
	if fi, err := os.Stat(filepath.Join(k.StateDir, "cas", "small.pack")); err != nil || fi.Size() == 0 {
		t.Errorf("the small-blob pack after the run: %v, %v (the rows' values were expected there)", fi, err)
	}
	if _, err := os.Stat(filepath.Join(k.StateDir, "journal.db")); err != nil {
		t.Errorf("journal.db: %v", err)
	}
}

// TestHostileJournalPendingBound: four connections of a token principal
// send execs whose rows are each about 1.5 MiB (a 768 KiB string literal
// in the source and again in the AST), 150 MiB of rows in all, nineteen
// times journal.MaxPendingBytes. Writers wait for the applier past that
// bound instead of the kernel holding the rows in memory: every exec is
// answered and journalled, the owner is served meanwhile, and RSS stays
// bounded.
func TestHostileJournalPendingBound(t *testing.T) {
	const conns, per = 4, 25
	k := Start(t, Options{MemCap: 3 << 30})
	hb := k.Heartbeat(t)
	tok := k.Token(t, "agent:journaller")
	src := `let s = "` + strings.Repeat("x", 768<<10) + `"; s.len()`
	errs := make(chan error, conns)
	for i := range conns {
		c := k.Attach(t, "j"+strconv.Itoa(i), tok)
		go func() {
			for range per {
				res, err := c.Exec(Ctx(t), client.ExecParams{Src: src})
				if err != nil {
					errs <- err
					return
				}
				if res.Render != "786432" {
					errs <- fmt.Errorf("exec answered %q", res.Render)
					return
				}
			}
			errs <- nil
		}()
	}
	for range conns {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	lat := hb.Stop(t)
	k.Alive(t)
	t.Logf("owner p99 %v; peak RSS %d MiB", Percentile(lat, 99), k.PeakRSS(t)>>20)
	// Pages end at journal.MaxPageBytes (8 MiB: about five of these
	// rows); the next starts after the last entry.
	var rows []journalRow
	owner := k.Owner(t)
	q := map[string]any{"principal": "agent:journaller", "limit": 1000}
	for {
		var page []journalRow
		if err := owner.Call(Ctx(t), "journal.query", q, &page); err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		rows = append(rows, page...)
		q["cursor"] = page[len(page)-1].ID
	}
	if len(rows) != conns*per {
		t.Fatalf("%d rows journalled, want %d", len(rows), conns*per)
	}
	for _, r := range rows {
		if !r.OK || !r.Finished || len(r.Src) != len(src) {
			t.Fatalf("row %d: ok %v finished %v src %d bytes", r.ID, r.OK, r.Finished, len(r.Src))
		}
	}
	k.WantRSSUnder(t, 512<<20) // 132 MiB measured for the 150 MiB of rows
}
