//go:build linux

package hostile

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// replayFloodReaders is ten times the kernel's concurrent replay reads
// (events.ReplayQueries, 2): since the thirteenth round of issue 24 an
// unwatched journal channel keeps no events in memory, so every one of
// these events.read calls is answered from the database.
const replayFloodReaders = 20

// TestHostileUnwatchedReplayFlood: twenty connections of one token
// principal read its whole journal channel from the database as fast as
// they can while nobody subscribes to it. The kernel stays up, each read
// answers (a page of the caller's own events, dense) or is refused with a
// typed error, the owner's heartbeat is answered throughout, and the
// owner's and another principal's reads of the same channel still give
// their events in order.
func TestHostileUnwatchedReplayFlood(t *testing.T) {
	k, a, b := journalPeers(t, "")
	ctx := Ctx(t)
	const rows = 60
	for i := range rows {
		if _, err := a.Exec(ctx, client.ExecParams{Src: fmt.Sprintf("%d + 1", i)}); err != nil {
			t.Fatalf("a's exec %d: %v", i, err)
		}
	}
	if _, err := b.Exec(ctx, client.ExecParams{Src: "2 + 2"}); err != nil {
		t.Fatal(err)
	}
	token := k.Token(t, "agent:a")
	readers := make([]*client.Client, replayFloodReaders)
	for i := range readers {
		readers[i] = k.Attach(t, fmt.Sprintf("flood%d", i), token)
	}
	pulse := k.Pulse(t)
	floodCtx, stop := context.WithTimeout(ctx, 3*time.Second)
	defer stop()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		reads int
		bad   []string
	)
	for _, c := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for floodCtx.Err() == nil {
				evs, err := c.EventsRead(floodCtx, "journal", 0, 1000)
				mu.Lock()
				var rpcErr *proto.RPCError
				switch {
				case err == nil && len(evs) == rows: // a sees its own rows only
					reads++
				case err == nil:
					if len(bad) < 10 {
						bad = append(bad, fmt.Sprintf("a read of %d events, want %d", len(evs), rows))
					}
				case floodCtx.Err() != nil, errors.Is(err, context.DeadlineExceeded), errors.As(err, &rpcErr):
				default:
					if len(bad) < 10 {
						bad = append(bad, "untyped: "+err.Error())
					}
				}
				mu.Unlock()
			}
		}()
	}
	// Meanwhile the owner and b read the same channel.
	owner := k.Owner(t)
	for floodCtx.Err() == nil {
		evs, err := owner.EventsRead(ctx, "journal", 0, 1000)
		if err != nil {
			t.Fatalf("the owner's events.read during the flood: %v", err)
		}
		for i, ev := range evs {
			if i > 0 && ev.Seq != evs[i-1].Seq+1 {
				t.Fatalf("the owner's events are not in order: %d after %d", ev.Seq, evs[i-1].Seq)
			}
		}
		bevs, err := b.EventsRead(ctx, "journal", 0, 100)
		if err != nil {
			t.Fatalf("b's events.read during the flood: %v", err)
		}
		wantDense(t, "b's events.read during the flood", bevs, 1, 1)
	}
	wg.Wait()
	k.Alive(t)
	pulse.Stop(t)
	if pulse.Answered() == 0 {
		t.Fatal("no owner heartbeat answered during the flood")
	}
	for _, s := range bad {
		t.Error(s)
	}
	if reads == 0 {
		t.Fatal("no flood read answered")
	}
	t.Logf("flood reads answered: %d by %d connections", reads, replayFloodReaders)
}
