package hostile

import (
	"os"
	"path/filepath"
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
// journal clean, keeps every committed row, and marks the unfinished one.
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
	for _, r := range rows[1:] {
		if r.Src != "ls ." || !r.Finished || !r.OK || r.Interrupted {
			t.Errorf("committed row lost or changed: %+v", r)
		}
	}
	if _, err := os.Stat(filepath.Join(k.StateDir, "journal.db")); err != nil {
		t.Errorf("journal.db: %v", err)
	}
}
