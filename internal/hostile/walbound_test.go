//go:build linux

package hostile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/journal"
)

// TestHostileWALBound: ten times journal.MaxWALBytes of journal rows
// written through the kernel binary (execs of large sources, each a
// journal row holding its source and AST) while another client queries
// the journal without pause, keeping SQLite's passive checkpoints behind
// its readers: the WAL file stays within its bound plus the one batch
// the applier may write past it (MaxPendingBytes of logged rows, and the
// index pages they touch), under the memory cap; the kernel stays up and
// the reader and another client are served throughout.
func TestHostileWALBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 160 MiB of journal rows")
	}
	k := Start(t, Options{})
	ctx := Ctx(t)
	writer := k.Owner(t)

	// The reader: journal.query of the newest row, without pause, on a
	// connection of its own.
	rctx, stopReader := context.WithCancel(ctx)
	reader := k.Owner(t)
	var wg sync.WaitGroup
	var reads int
	var readErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for rctx.Err() == nil {
			var rows []map[string]any
			if err := reader.Call(rctx, "journal.query", map[string]any{"limit": 1}, &rows); err != nil {
				if rctx.Err() == nil {
					readErr = err
				}
				return
			}
			reads++
		}
	}()

	// The WAL's size, sampled while the rows go in.
	wal := filepath.Join(k.StateDir, "journal.db-wal")
	var peak int64
	sample := func() {
		if fi, err := os.Stat(wal); err == nil && fi.Size() > peak {
			peak = fi.Size()
		}
	}
	done := make(chan struct{})
	var swg sync.WaitGroup
	swg.Add(1)
	go func() {
		defer swg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				sample()
			}
		}
	}()

	// Rows of about 1.5 MiB each (a 768 KiB string literal: the source,
	// and the AST holding it again) until ten times the bound is written.
	lit := `"` + strings.Repeat("w", 768<<10) + `"`
	const rowBytes = 3 * (768 << 10) / 2
	rows := 10*journal.MaxWALBytes/rowBytes + 1
	for i := range rows {
		if _, err := writer.Exec(ctx, client.ExecParams{Src: lit}); err != nil {
			t.Fatalf("exec %d of %d: %v", i+1, rows, err)
		}
	}
	close(done)
	swg.Wait()
	sample()
	stopReader()
	wg.Wait()
	if readErr != nil {
		t.Errorf("the reader was not served: %v", readErr)
	}
	if reads == 0 {
		t.Errorf("the reader made no query while the rows went in")
	}
	limit := int64(journal.MaxWALBytes + 2*journal.MaxPendingBytes)
	t.Logf("%d rows of ~%d KiB, %d queries beside them, WAL peak %d MiB (bound %d MiB, allowed %d MiB)",
		rows, rowBytes>>10, reads, peak>>20, journal.MaxWALBytes>>20, limit>>20)
	if peak > limit {
		t.Errorf("WAL reached %d bytes, past its bound %d plus a batch (%d)", peak, journal.MaxWALBytes, limit)
	}
	k.Alive(t)
	var v any
	if err := k.Owner(t).Call(ctx, "exec", map[string]any{"src": "1 + 1"}, &v); err != nil {
		t.Errorf("another client: %v", err)
	}
}
