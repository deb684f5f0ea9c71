//go:build linux

package hostile

import (
	"bufio"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// The harness itself: a kernel starts under its cap, the owner and a token
// principal are served, a heartbeat runs, and the kernel reports its RSS.
func TestHarnessStartsAndServes(t *testing.T) {
	k := Start(t, Options{MemCap: 2 << 30})
	hb := k.Heartbeat(t)
	owner := k.Owner(t)
	res, err := owner.Exec(Ctx(t), client.ExecParams{Src: "40 + 2"})
	if err != nil || res.Render != "42" {
		t.Fatalf("owner exec = %+v, %v", res, err)
	}
	agent := k.Attach(t, "s1", k.Token(t, "agent:probe"))
	_, err = agent.Exec(Ctx(t), client.ExecParams{Src: "sh { id }"})
	if err == nil {
		t.Fatalf("a token principal ran a command without policy")
	}
	_, err = agent.Exec(Ctx(t), client.ExecParams{Src: "1 +"})
	WantCode(t, err, proto.CodeParseError)

	raw := k.Dial(t)
	r := bufio.NewReader(raw)
	SendFrame(t, raw, `{"jsonrpc":"2.0","id":7,"method":"kernel.info"}`)
	ans := ReadFrame(t, raw, r, 5*time.Second)
	if string(ans["id"]) != "7" || ans["result"] == nil {
		t.Fatalf("kernel.info answer: %v", ans)
	}
	time.Sleep(100 * time.Millisecond)
	if lat := hb.Stop(t); len(lat) == 0 {
		t.Fatal("no heartbeat")
	}
	k.Alive(t)
	k.WantRSSUnder(t, 512<<20)
	if !strings.Contains(k.Stderr(), "ready") {
		t.Errorf("stderr lacks the ready line: %q", k.Stderr())
	}
}
