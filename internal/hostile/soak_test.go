//go:build linux

package hostile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// Soak bounds, stated once: the soak fails past them.
const (
	soakAttackers   = 4
	soakMemCap      = 4 << 30 // RLIMIT_AS of the kernel
	soakRSSBound    = 3 << 30 // peak RSS the kernel may reach
	soakDefaultSecs = 20
)

// soakFlags keeps the budgets small, so the attacks cross them quickly and
// the machine stays light.
var soakFlags = []string{
	"--session-memory", "256MiB", "--kernel-memory", "1GiB", "--memory-limit", "2GiB",
	"--event-memory", "64MiB", "--event-session-memory", "8MiB",
	"--frame-memory", "64MiB", "--outbox-memory", "64MiB",
}

// An attack is one hostile move by a non-owner principal. It returns an
// error only for outcomes the kernel must never produce; typed refusals
// are the expected result and return nil.
type attack struct {
	name string
	run  func(a *attacker) error
}

// attacker is one hostile principal with its own connection.
type attacker struct {
	t     testing.TB
	k     *Kernel
	rng   *rand.Rand
	token string
	id    int
	c     *client.Client
	ctx   context.Context
}

// conn returns a live attached client, redialling after the kernel closed
// the last one.
func (a *attacker) conn(session string) (*client.Client, error) {
	if a.c != nil {
		select {
		case <-a.c.Done():
			a.c = nil
		default:
		}
	}
	if a.c == nil {
		c, err := client.Dial(a.ctx, a.k.Sock)
		if err != nil {
			return nil, fmt.Errorf("dial: %w", err)
		}
		a.c = c
	}
	if _, err := a.c.Attach(a.ctx, client.AttachParams{Session: session, Token: a.token}); err != nil {
		if typed(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("attach: %w", err)
	}
	return a.c, nil
}

// typed reports whether err is an answer the kernel chose to give: a
// JSON-RPC error other than INTERNAL_ERROR.
func typed(err error) bool {
	code, ok := client.ErrorCode(err)
	return ok && code != proto.CodeInternalError
}

// execOutcome classifies the result of a hostile exec: success and typed
// errors are fine, an internal error or a dropped connection is not.
func execOutcome(err error) error {
	if err == nil || typed(err) {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no answer within the attack deadline")
	}
	return err
}

// bigFn builds a string of at least n/2 and at most n bytes by doubling s
// (Shoal has no str * int): prepended to sources that need big inputs.
const bigFn = "fn big(s, n) { var r = s; while r.len() * 2 <= n { r = r + r }; r }; "

// execSrc runs src as the attacker in a session of its own.
func (a *attacker) execSrc(src string, timeoutMS int64) error {
	c, err := a.conn(fmt.Sprintf("a%d", a.id))
	if err != nil || c == nil {
		return err
	}
	ctx, cancel := context.WithTimeout(a.ctx, 60*time.Second)
	defer cancel()
	res, err := c.Exec(ctx, client.ExecParams{Src: src, TimeoutMS: timeoutMS})
	if err == nil && res.IsTask() {
		// A run that outlived its timeout: cancel it as an agent would.
		err = c.Call(ctx, "task.cancel", map[string]any{"task": res.Task}, nil)
	}
	return execOutcome(err)
}

func (a *attacker) pick(xs ...int) int { return xs[a.rng.IntN(len(xs))] }

// rawFrame opens a fresh raw connection, writes frame bytes (no newline
// added) and waits briefly for an answer or a close. Both are fine; the
// connection is closed afterwards.
func (a *attacker) rawFrame(frame []byte, wait time.Duration) error {
	nc, err := net.DialTimeout("unix", a.k.Sock, 10*time.Second)
	if err != nil {
		return fmt.Errorf("dial: %w", err)
	}
	defer nc.Close()
	nc.SetWriteDeadline(time.Now().Add(30 * time.Second))
	nc.Write(frame) // the kernel may close mid-write: that is its right
	nc.SetReadDeadline(time.Now().Add(wait))
	bufio.NewReader(nc).ReadBytes('\n')
	return nil
}

var attacks = []attack{
	{"deep list", func(a *attacker) error {
		return a.execSrc(fmt.Sprintf("var x = []; for i in 0..%d { x = [x] }; x", a.pick(10000, 100000, 1000000)), 0)
	}},
	{"deep record", func(a *attacker) error {
		return a.execSrc(fmt.Sprintf("var x = {}; for i in 0..%d { x = {a: x} }; x == x", a.pick(100000, 1000000)), 0)
	}},
	{"flat chain exec", func(a *attacker) error {
		return a.execSrc("1"+strings.Repeat("+1", a.pick(200000, 1000000)), 0)
	}},
	{"flat chain parse", func(a *attacker) error {
		c, err := client.Dial(a.ctx, a.k.Sock)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Parse(a.ctx, "1"+strings.Repeat("+1", a.pick(200000, 1500000)))
		return execOutcome(err)
	}},
	{"many statements parse", func(a *attacker) error {
		c, err := client.Dial(a.ctx, a.k.Sock)
		if err != nil {
			return err
		}
		defer c.Close()
		// Up to a whole frame of statements: the request must still fit one.
		_, err = c.Parse(a.ctx, strings.Repeat("1;", a.pick(1<<20, (proto.MaxFrame-128)/2)))
		return execOutcome(err)
	}},
	{"big strings kept", func(a *attacker) error {
		return a.execSrc(bigFn+"var keep = []; for i in 0..80 { keep = keep + [\"{i}\" + big(\"x\", 67108864)] }; keep.len()", 0)
	}},
	{"big maps", func(a *attacker) error {
		return a.execSrc("var keep = []; for i in 0..40 { keep = keep + [(0..16000000).map(x => x)] }; keep.len()", 0)
	}},
	{"doubling", func(a *attacker) error {
		return a.execSrc(`var s = "x"; while true { s = s + s }`, 0)
	}},
	{"deep json", func(a *attacker) error {
		return a.execSrc(fmt.Sprintf(bigFn+`json.parse(big("[", %d))`, a.pick(100000, 4000000)), 0)
	}},
	{"deep toml", func(a *attacker) error {
		return a.execSrc(fmt.Sprintf(bigFn+`toml.parse("a = " + big("[", %d))`, a.pick(100000, 1000000)), 0)
	}},
	{"deep yaml", func(a *attacker) error {
		return a.execSrc(fmt.Sprintf(bigFn+`yaml.parse(big("[", %d))`, a.pick(100000, 1000000)), 0)
	}},
	{"newline render", func(a *attacker) error {
		return a.execSrc(bigFn+`big("\n", 67108864)`, 0)
	}},
	{"nul render", func(a *attacker) error {
		return a.execSrc(bigFn+`big("\u{0}", 65536)`, 0)
	}},
	{"endless loop", func(a *attacker) error {
		return a.execSrc("while true { }", 300)
	}},
	{"many sessions", func(a *attacker) error {
		for i := 0; i < a.pick(100, 2000); i++ {
			if _, err := a.conn(fmt.Sprintf("m%d-%d", a.id, i)); err != nil {
				return err
			}
		}
		return nil
	}},
	{"many channels", func(a *attacker) error {
		c, err := a.conn(fmt.Sprintf("a%d", a.id))
		if err != nil || c == nil {
			return err
		}
		payload := strings.Repeat("p", 60<<10)
		for i := 0; i < 300; i++ {
			_, err := c.EventsPublish(a.ctx, fmt.Sprintf("user.c%d", i), payload)
			if e := execOutcome(err); e != nil {
				return e
			}
		}
		return nil
	}},
	{"subscribe since", func(a *attacker) error {
		c, err := a.conn(fmt.Sprintf("a%d", a.id))
		if err != nil || c == nil {
			return err
		}
		err = c.Call(a.ctx, "events.subscribe", map[string]any{"channel": "user.x", "since": uint64(9007199254740991)}, nil)
		return execOutcome(err)
	}},
	{"partial frame", func(a *attacker) error {
		return a.rawFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"parse","params":{"src":"`+strings.Repeat("x", a.pick(1<<20, 16<<20-64))), 500*time.Millisecond)
	}},
	{"over-long frame", func(a *attacker) error {
		return a.rawFrame([]byte(strings.Repeat("[", 17<<20)), time.Second)
	}},
	{"deep frame", func(a *attacker) error {
		d := a.pick(10000, 100000, 1000000)
		return a.rawFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"parse","params":`+strings.Repeat("[", d)+strings.Repeat("]", d)+"}\n"), time.Second)
	}},
	{"garbage frames", func(a *attacker) error {
		var b strings.Builder
		for i := 0; i < 1000; i++ {
			b.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"exec","params":{"src":"1"}}` + "\n")
			b.WriteString("not json\n")
		}
		return a.rawFrame([]byte(b.String()), 500*time.Millisecond)
	}},
	{"pipelined flood", func(a *attacker) error {
		var b strings.Builder
		for i := 0; i < 2000; i++ {
			b.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"kernel.info"}` + "\n")
		}
		return a.rawFrame([]byte(b.String()), 200*time.Millisecond)
	}},
}

// TestHostileSoak runs several non-owner attackers against one kernel
// while the owner's heartbeat runs, for SHOAL_SOAK_SECONDS (default 20; 5
// with -short): no kernel death, every hostile request answered with a
// typed error or a bounded result, every owner heartbeat answered (a
// Pulse: how fast is the machine's business, not the test's) and peak RSS
// under soakRSSBound.
func TestHostileSoak(t *testing.T) {
	secs := soakDefaultSecs
	if testing.Short() {
		secs = 5
	}
	if s := os.Getenv("SHOAL_SOAK_SECONDS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			secs = n
		}
	}
	k := Start(t, Options{Flags: soakFlags, MemCap: soakMemCap})
	hb := k.Pulse(t)
	deadline := time.Now().Add(time.Duration(secs) * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(secs)*time.Second+2*time.Minute)
	defer cancel()

	var mu sync.Mutex
	counts := map[string]int{}
	var failures []string
	var wg sync.WaitGroup
	for i := 0; i < soakAttackers; i++ {
		a := &attacker{t: t, k: k, rng: rand.New(rand.NewPCG(uint64(i), 0x5eed)), token: k.Token(t, fmt.Sprintf("agent:soak%d", i)), id: i, ctx: ctx}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if a.c != nil {
					a.c.Close()
				}
			}()
			for time.Now().Before(deadline) {
				at := attacks[a.rng.IntN(len(attacks))]
				err := at.run(a)
				mu.Lock()
				counts[at.name]++
				if err != nil && len(failures) < 50 {
					failures = append(failures, fmt.Sprintf("%s: %v", at.name, err))
				}
				mu.Unlock()
				select {
				case <-k.Exited():
					return
				default:
				}
			}
		}()
	}
	wg.Wait()
	k.Alive(t)
	lat := hb.Stop(t)
	if len(lat) == 0 {
		t.Fatal("no owner heartbeat answered during the soak")
	}
	t.Logf("owner heartbeats: %d, p50 %v, p99 %v", len(lat), Percentile(lat, 50), Percentile(lat, 99))
	k.WantRSSUnder(t, soakRSSBound)
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	var summary []string
	for _, n := range names {
		summary = append(summary, fmt.Sprintf("%s %d", n, counts[n]))
	}
	t.Logf("attacks run: %s", strings.Join(summary, ", "))
	for _, f := range failures {
		t.Errorf("untyped outcome: %s", f)
	}
}
