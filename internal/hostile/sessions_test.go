//go:build linux

package hostile

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// Session attack bounds, stated once.
const (
	sessionsBound  = 16        // --principal-sessions in these tests
	sessionsMemCap = 2 << 30   // RLIMIT_AS of the kernel
	sessionsRSS    = 128 << 20 // peak RSS the kernel may reach
)

// refusalData is the data of a request refused by a bound.
type refusalData struct {
	Code   string `json:"code"`
	Budget string `json:"budget"`
	Limit  int    `json:"limit"`
}

// wantRefusal checks a request refused by a bound (an attach past a session
// limit, an exec past a task limit): LEASH_DENIED, quota_exceeded, the
// budget named in data and message.
func wantRefusal(t *testing.T, err error, budget string, limit int) {
	t.Helper()
	WantCode(t, err, proto.CodeLeashDenied)
	var d refusalData
	if derr := client.ErrorData(err, &d); derr != nil {
		t.Fatalf("error data: %v", derr)
	}
	if d.Code != "quota_exceeded" || d.Budget != budget || d.Limit != limit {
		t.Fatalf("refusal data %+v; want quota_exceeded %s %d", d, budget, limit)
	}
	if !strings.Contains(err.Error(), budget) {
		t.Fatalf("message %q does not name %s", err, budget)
	}
}

func attachCtx(t *testing.T) (context.Context, context.CancelFunc) {
	return context.WithTimeout(Ctx(t), 10*time.Second)
}

// TestHostileManySessions: one principal attaching ten times its session
// bound gets a typed error for each attach past it; other principals share
// a kernel-wide pool that is also bounded; the owner, counted apart,
// still attaches new sessions and its heartbeat is served throughout.
func TestHostileManySessions(t *testing.T) {
	k := Start(t, Options{MemCap: sessionsMemCap, Flags: []string{
		"--principal-sessions", fmt.Sprint(sessionsBound), "--token-sessions", fmt.Sprint(3 * sessionsBound),
	}})
	hb := k.Heartbeat(t)
	tok := k.Token(t, "agent:evil")
	evil := k.Attach(t, "e0", tok)
	refused := 0
	for i := 1; i < 10*sessionsBound; i++ {
		ctx, cancel := attachCtx(t)
		_, err := evil.Attach(ctx, client.AttachParams{Session: fmt.Sprintf("e%d", i), Token: tok})
		cancel()
		switch {
		case err == nil && i < sessionsBound:
		case err != nil && i >= sessionsBound:
			wantRefusal(t, err, "sessions_per_principal", sessionsBound)
			refused++
		default:
			t.Fatalf("attach %d of agent:evil: %v", i, err)
		}
	}
	if refused != 9*sessionsBound {
		t.Errorf("%d attaches refused; want %d", refused, 9*sessionsBound)
	}

	// Many principals fill the kernel-wide pool of token sessions: every
	// attach past it is refused too, ten times over.
	pool := 3 * sessionsBound
	used := sessionsBound
	refused = 0
	for p := 0; p < 10*pool/sessionsBound-1; p++ {
		c := k.Client(t)
		tk := k.Token(t, fmt.Sprintf("agent:swarm%d", p))
		for i := 0; i < sessionsBound; i++ {
			ctx, cancel := attachCtx(t)
			_, err := c.Attach(ctx, client.AttachParams{Session: fmt.Sprintf("s%d", i), Token: tk})
			cancel()
			if err == nil {
				used++
				continue
			}
			wantRefusal(t, err, "token_sessions", pool)
			refused++
		}
	}
	if used != pool || refused == 0 {
		t.Errorf("token sessions used %d (want %d), refused %d", used, pool, refused)
	}

	// The owner's room is untouched.
	owner := k.Owner(t)
	for i := 0; i < 2*sessionsBound; i++ {
		ctx, cancel := attachCtx(t)
		res, err := owner.Attach(ctx, client.AttachParams{Session: fmt.Sprintf("own%d", i)})
		cancel()
		if err != nil || !res.Created {
			t.Fatalf("owner attach %d while token sessions are full: %+v %v", i, res, err)
		}
	}
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, sessionsRSS)
}

// TestHostileIdleSessions: with a short --session-idle, sessions a
// principal lets go of are closed and their places given back, so it can
// cycle through ten times its bound; while it holds its whole bound, a
// further attach is refused. The owner is served throughout.
func TestHostileIdleSessions(t *testing.T) {
	const bound, idle = 4, 200 * time.Millisecond
	k := Start(t, Options{MemCap: sessionsMemCap, Flags: []string{
		"--principal-sessions", fmt.Sprint(bound), "--session-idle", idle.String(),
	}})
	hb := k.Heartbeat(t)
	tok := k.Token(t, "agent:cycler")
	for round := 0; round < 10; round++ {
		var held []*client.Client
		for i := 0; i < bound; i++ {
			name := fmt.Sprintf("r%d-%d", round, i)
			// The previous round's sessions close within an idle period
			// or so; until then the bound refuses the new names.
			var c *client.Client
			deadline := time.Now().Add(10 * idle)
			for {
				c = k.Client(t)
				ctx, cancel := attachCtx(t)
				res, err := c.Attach(ctx, client.AttachParams{Session: name, Token: tok})
				cancel()
				if err == nil {
					if !res.Created {
						t.Fatalf("%s: not a fresh session", name)
					}
					break
				}
				wantRefusal(t, err, "sessions_per_principal", bound)
				c.Close()
				if time.Now().After(deadline) {
					t.Fatalf("round %d: %s still refused %v after the previous sessions were let go", round, name, 10*idle)
				}
				time.Sleep(idle / 4)
			}
			ctx, cancel := attachCtx(t)
			if _, err := c.Exec(ctx, client.ExecParams{Src: `var kept = (0..1000).map(x => x)`}); err != nil {
				t.Fatal(err)
			}
			cancel()
			held = append(held, c)
		}
		// Holding the whole bound: one more is refused, however long.
		time.Sleep(2 * idle)
		extra := k.Client(t)
		ctx, cancel := attachCtx(t)
		_, err := extra.Attach(ctx, client.AttachParams{Session: fmt.Sprintf("r%d-extra", round), Token: tok})
		cancel()
		wantRefusal(t, err, "sessions_per_principal", bound)
		extra.Close()
		for _, c := range held {
			c.Close()
		}
	}
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, sessionsRSS)
}

// TestHostileOwnerSessions: the owner's own bound holds too (ten times
// over), with a typed error, while the owner's existing sessions, the
// heartbeat among them, are served.
func TestHostileOwnerSessions(t *testing.T) {
	const bound = 8
	k := Start(t, Options{MemCap: sessionsMemCap, Flags: []string{"--owner-sessions", fmt.Sprint(bound)}})
	hb := k.Heartbeat(t) // one of the owner's sessions
	owner := k.Owner(t)  // another
	refused := 0
	for i := 0; i < 10*bound; i++ {
		ctx, cancel := attachCtx(t)
		_, err := owner.Attach(ctx, client.AttachParams{Session: fmt.Sprintf("o%d", i)})
		cancel()
		if err != nil {
			wantRefusal(t, err, "owner_sessions", bound)
			refused++
		}
	}
	if refused != 10*bound-(bound-2) {
		t.Errorf("%d owner attaches refused; want %d", refused, 10*bound-(bound-2))
	}
	ctx, cancel := attachCtx(t)
	defer cancel()
	if _, err := owner.Exec(ctx, client.ExecParams{Src: "1 + 1"}); err != nil {
		t.Errorf("owner exec after the refusals: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // let the heartbeat beat beside the full owner room
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, sessionsRSS)
}
