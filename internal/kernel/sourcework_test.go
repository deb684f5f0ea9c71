package kernel

import (
	"strings"
	"testing"
	"time"
)

// TestSourceWorkWaitsForSlot takes every source slot, so that a parse
// cannot run on the reader: it waits on its own goroutine, the reader goes
// on serving the connection (kernel.info is answered meanwhile), and the
// parse is answered once a slot comes back. With a slot free again the
// next parse runs on the reader, and every slot is back afterwards.
func TestSourceWorkWaitsForSlot(t *testing.T) {
	k := startKernel(t)
	w := k.srv.source
	var held []*sourceSlot
	for range SourceWorkers {
		ps := w.tryTake()
		if ps == nil {
			t.Fatal("a slot is missing before any request")
		}
		held = append(held, ps)
	}
	c := k.dial(t)
	c.sendRaw(`{"jsonrpc":"2.0","id":1,"method":"parse","params":{"src":"ls.where(.size > 1kb)"}}`)
	c.sendRaw(`{"jsonrpc":"2.0","id":2,"method":"kernel.info"}`)
	if r := c.recv(); string(r.ID) != "2" || r.Error != nil {
		t.Fatalf("with every slot taken, the first answer is %s %+v; want kernel.info's", r.ID, r.Error)
	}
	time.Sleep(50 * time.Millisecond)
	w.give(held[0])
	r := c.recv()
	if string(r.ID) != "1" || r.Error != nil || !strings.HasPrefix(string(r.Result), `{"ast_version":2,"ast":{"stmts":[`) {
		t.Fatalf("parse answer once a slot is back: %s %s %+v", r.ID, r.Result, r.Error)
	}
	for _, ps := range held[1:] {
		w.give(ps)
	}
	var res struct {
		ASTVersion int `json:"ast_version"`
	}
	c.ok("parse", map[string]string{"src": "echo hi"}, &res)
	if res.ASTVersion != ASTVersion {
		t.Fatalf("ast_version %d", res.ASTVersion)
	}
	for range SourceWorkers {
		if ps := w.tryTake(); ps == nil {
			t.Fatal("a slot was not given back")
		}
	}
}
