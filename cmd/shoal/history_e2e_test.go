package main

import (
	"context"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
)

// TestHistoryPagesCutByBytesE2E: through a real kernel, execs of large
// source fill journal.query's page bound (8 MiB of source, AST, effects
// and outputs) in fewer entries than --limit asks for. `shoal history`
// shows the entries of the cut page and offers the next page; following
// the offered cursors reaches every entry, newest first, each once, and
// the last page offers none.
func TestHistoryPagesCutByBytesE2E(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's end-to-end tests run on Linux")
	}
	sock := startKernel(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := client.Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Attach(ctx, client.AttachParams{Session: "big"}); err != nil {
		t.Fatal(err)
	}
	// A small entry first (the oldest), then eight whose source holds a
	// 900 KiB string: its source and its AST each count about that much
	// towards the page bound, so about five of them fill a page.
	const big = 8
	srcs := []string{"let small = 1"}
	for i := range big {
		srcs = append(srcs, "let big"+strconv.Itoa(i)+` = "`+strings.Repeat("x", 900<<10)+`"`)
	}
	for _, src := range srcs {
		if _, err := c.Exec(ctx, client.ExecParams{Src: src}); err != nil {
			t.Fatalf("exec %.20s: %v", src, err)
		}
	}

	// What the kernel answers one page of 20: fewer, cut by bytes.
	first, _, err := c.JournalQuery(ctx, client.JournalQueryParams{Session: "big", Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(first) == 0 || len(first) >= len(srcs) {
		t.Fatalf("a page of 20 holds %d of the %d entries: the byte bound did not cut it", len(first), len(srcs))
	}

	row := regexp.MustCompile(`(?m)^(\d+)\s`)
	more := regexp.MustCompile(`more: shoal history --cursor=(\d+)`)
	var seen []string
	args := []string{"--socket=" + sock, "--attach=big", "--session=big"}
	for pages := 1; ; pages++ {
		if pages > len(srcs) {
			t.Fatalf("no last page after %d pages: %v", pages, seen)
		}
		code, out, errs := runHistory(t, args...)
		if code != 0 {
			t.Fatalf("page %d: exit %d: %s", pages, code, errs)
		}
		ids := row.FindAllStringSubmatch(out, -1)
		if len(ids) == 0 {
			t.Fatalf("page %d is empty after an offered cursor:\n%s", pages, out)
		}
		for _, m := range ids {
			seen = append(seen, m[1])
		}
		if pages == 1 && len(ids) != len(first) {
			t.Errorf("the first page shows %d entries; the kernel answered %d", len(ids), len(first))
		}
		m := more.FindStringSubmatch(errs)
		if m == nil {
			break
		}
		if m[1] != ids[len(ids)-1][1] {
			t.Fatalf("page %d offers --cursor=%s, its last entry is %s", pages, m[1], ids[len(ids)-1][1])
		}
		args = []string{"--socket=" + sock, "--attach=big", "--session=big", "--cursor=" + m[1]}
	}
	if len(seen) != len(srcs) {
		t.Fatalf("the pages showed %d entries (%v), want all %d", len(seen), seen, len(srcs))
	}
	for i := 1; i < len(seen); i++ {
		a, _ := strconv.Atoi(seen[i-1])
		b, _ := strconv.Atoi(seen[i])
		if b >= a {
			t.Fatalf("ids not newest first, each once: %v", seen)
		}
	}
}
