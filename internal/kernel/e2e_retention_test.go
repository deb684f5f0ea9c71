package kernel_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/kernel"
)

// Under a small disk budget the oldest finished rows are pruned and their
// blobs go with them (blob.get and content refs answer not found), while
// a row whose exec is still running is kept, and recent rows
// and their blobs stay readable.
func TestE2EJournalBudgetPrunes(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	lim := kernel.DefaultLimits()
	lim.JournalMaxBytes = 1 << 20
	k := serveConfigE2E(t, sock, dir, store, kernel.Config{Version: "e2e", TokenStore: store, Dir: dir,
		Env: []string{"HOME=" + filepath.Dir(dir), "PATH=/usr/bin:/bin"}, Limits: &lim,
		StateDir: filepath.Join(filepath.Dir(dir), "state")})
	ctx := testCtx(t)
	c := k.attached(t, "main", "")
	bg := k.attached(t, "bg", "")
	// A run with effects commits its start row first; it stays unfinished
	// while the flood below is pruned.
	if _, err := bg.Exec(ctx, client.ExecParams{Src: "^sleep 60", Async: true}); err != nil {
		t.Fatal(err)
	}
	seq := func(i int) string { return fmt.Sprintf("seq %d %d; 0", 1_000_000+i*20_000, 1_020_000+i*20_000) }
	bySrc := func() map[string]wireEntry {
		m := map[string]wireEntry{}
		for _, e := range queryJournal(t, c, map[string]any{"limit": 1000}) {
			m[e.Src] = e
		}
		return m
	}
	const n = 64 // 64 × 64 KiB of kept output: four times the budget
	var firstHash string
	for i := 0; i < n; i++ {
		if _, err := c.Exec(ctx, client.ExecParams{Src: seq(i)}); err != nil {
			t.Fatalf("exec %d: %v", i, err)
		}
		if i == 0 {
			firstHash = bySrc()[seq(0)].output("stdout")
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	var rows map[string]wireEntry
	for {
		rows = bySrc()
		if _, kept := rows[seq(0)]; !kept {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the oldest row is not pruned under the budget: %d rows", len(rows))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if firstHash == "" {
		t.Fatal("the first row has no stdout output")
	}
	if len(rows) >= n {
		t.Fatalf("%d rows of %d kept", len(rows), n+1)
	}
	newest, ok := rows[seq(n-1)]
	if !ok {
		t.Fatal("the newest row was pruned")
	}
	if s, ok := rows["^sleep 60"]; !ok || s.Finished {
		t.Fatalf("the running exec's row was pruned or finished: %v %v", ok, s)
	}
	// The pruned row's blob is gone; the newest one's is served, also as
	// a content ref.
	_, err := getBlob(c, t, map[string]any{"hash": firstHash})
	wantCode(t, "blob.get of a pruned row's blob", err, -32004)
	if b, err := getBlob(c, t, map[string]any{"hash": newest.output("stdout")}); err != nil || b.Len != 64<<10 {
		t.Fatalf("blob.get of the newest row's stdout = %+v, %v", b, err)
	}
	for src, want := range map[string]string{
		fmt.Sprintf("try { %q.len } catch e { e.code }", "val:"+firstHash):                                        "not_found",
		fmt.Sprintf("%q.len", "val:"+newest.output("stdout")):                                                     "65536",
		fmt.Sprintf("%q.str.starts_with(%q)", "val:"+newest.output("stdout"), fmt.Sprint(1_000_000+(n-1)*20_000)): "true",
	} {
		r, err := c.Exec(ctx, client.ExecParams{Src: src})
		if err != nil || r.Render != want {
			t.Errorf("%s = %v, %v; want %s", src, r, err, want)
		}
	}
	if !strings.HasPrefix(newest.output("stdout"), "blake3:") {
		t.Fatal("no stdout hash")
	}
}
