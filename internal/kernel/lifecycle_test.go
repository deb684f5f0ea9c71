package kernel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/proto"
)

// startLimited starts a kernel with session limits l.
func startLimited(t *testing.T, l Limits) *testKernel {
	t.Helper()
	return startKernelWith(t, func(c *Config) { c.Limits = &l })
}

// limitData is the data of a session limit error.
type limitData struct {
	Code   string `json:"code"`
	Budget string `json:"budget"`
	Limit  int    `json:"limit"`
}

// wantSessionLimit checks that attaching name fails with the named budget.
func wantSessionLimit(t *testing.T, c *client, name, token, budget string, limit int) {
	t.Helper()
	p := map[string]any{"session": name}
	if token != "" {
		p["token"] = token
	}
	r := c.fail("session.attach", p, proto.CodeLeashDenied)
	var d limitData
	if err := json.Unmarshal(r.Error.Data, &d); err != nil {
		t.Fatalf("limit error data %s: %v", r.Error.Data, err)
	}
	if d.Code != "quota_exceeded" || d.Budget != budget || d.Limit != limit {
		t.Errorf("attach %s: data %+v; want quota_exceeded %s %d", name, d, budget, limit)
	}
	if !strings.Contains(r.Error.Message, budget) || !strings.Contains(r.Error.Message, "session limit reached") {
		t.Errorf("attach %s: message %q does not name the bound %s", name, r.Error.Message, budget)
	}
}

// TestSessionLimits: each token principal has its own bound, token
// principals together another, and the owner's room is kept apart from
// both. A refused attach leaves the connection attached as it was.
func TestSessionLimits(t *testing.T) {
	k := startLimited(t, Limits{SessionsPerPrincipal: 3, TokenSessions: 5, OwnerSessions: 4})
	_, a := k.token(t, "agent:a", "p")
	_, b := k.token(t, "agent:b", "p")
	_, cTok := k.token(t, "agent:c", "p")
	c := k.dial(t)

	for i := range 3 {
		if res := c.attach("s"+string(rune('0'+i)), a); res["created"] != true {
			t.Errorf("first attach of s%d: created = %v", i, res["created"])
		}
	}
	wantSessionLimit(t, c, "s3", a, "sessions_per_principal", 3)
	// Still attached to s2, and re-attaching an existing name is no new
	// session.
	var ex execResult
	c.ok("exec", map[string]any{"src": "1 + 1"}, &ex)
	if res := c.attach("s0", a); res["created"] != false {
		t.Errorf("re-attach of s0: created = %v", res["created"])
	}

	c.attach("s0", b)
	c.attach("s1", b)
	wantSessionLimit(t, c, "s2", b, "token_sessions", 5)
	wantSessionLimit(t, c, "s0", cTok, "token_sessions", 5)

	// The owner is not touched by the token principals' use.
	for i := range 4 {
		c.attach("o"+string(rune('0'+i)), "")
	}
	wantSessionLimit(t, c, "o4", "", "owner_sessions", 4)
	if n := k.srv.sessions.len(); n != 9 {
		t.Errorf("kernel keeps %d sessions; want 9", n)
	}
}

// TestSessionLimitTenfold: a principal attaching ten times its bound gets
// a typed error for every attach past it, while the owner still attaches
// and is served.
func TestSessionLimitTenfold(t *testing.T) {
	const bound = 8
	k := startLimited(t, Limits{SessionsPerPrincipal: bound, TokenSessions: 1024, OwnerSessions: 16})
	_, evil := k.token(t, "agent:evil", "p")
	c := k.dial(t)
	refused := 0
	for i := range 10 * bound {
		r := c.call("session.attach", map[string]any{"session": "s" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + string(rune('a'+i/26)), "token": evil})
		if r.Error != nil {
			if r.Error.Code != proto.CodeLeashDenied {
				t.Fatalf("attach %d: %d %s", i, r.Error.Code, r.Error.Message)
			}
			refused++
		}
	}
	if refused != 9*bound {
		t.Errorf("%d attaches refused; want %d", refused, 9*bound)
	}
	owner := k.dial(t)
	owner.attach("owner", "")
	var ex execResult
	owner.ok("exec", map[string]any{"src": "1 + 1"}, &ex)
	if !strings.Contains(string(ex.Value), "2") {
		t.Errorf("owner exec = %s", ex.Value)
	}
}

// eventually polls cond for up to limit.
func eventually(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestIdleSessionClosed: a session nobody holds is closed after the idle
// period, and everything it kept is released: the registry's count, its
// transcript and its share of the kernel-wide budget, its event scope.
// Attaching to the name again gives a fresh session.
func TestIdleSessionClosed(t *testing.T) {
	k := startLimited(t, Limits{SessionsPerPrincipal: 2, TokenSessions: 8, OwnerSessions: 8, SessionIdle: 100 * time.Millisecond})
	_, tok := k.token(t, "agent:idle", "p")
	c := k.dial(t)
	c.attach("work", tok)
	var ex execResult
	c.ok("exec", map[string]any{"src": `var x = 41`}, &ex)
	c.ok("exec", map[string]any{"src": `(0..10000).map(x => x)`}, &ex)
	c.ok("events.publish", map[string]any{"channel": "user.note", "payload": 1}, nil)
	scope := events.Scope{Principal: "agent:idle", Session: "work"}
	if k.srv.sessions.budget.total() == 0 || k.srv.bus.LatestSeq(scope, "user.note") == 0 {
		t.Fatal("nothing kept before the close")
	}
	// Attached: kept however long it is left alone.
	time.Sleep(400 * time.Millisecond)
	if n := k.srv.sessions.len(); n != 1 {
		t.Fatalf("an attached session was closed (%d left)", n)
	}
	c.conn.Close()
	eventually(t, 5*time.Second, "idle session closed", func() bool { return k.srv.sessions.len() == 0 })
	if got := k.srv.sessions.budget.total(); got != 0 {
		t.Errorf("kernel transcript budget still holds %d bytes", got)
	}
	if got := k.srv.sessions.budget.sessions(); got != 0 {
		t.Errorf("kernel transcript budget still marks %d sessions", got)
	}
	if seq := k.srv.bus.LatestSeq(scope, "user.note"); seq != 0 {
		t.Errorf("event scope kept: user.note at seq %d", seq)
	}

	c2 := k.dial(t)
	if res := c2.attach("work", tok); res["created"] != true {
		t.Errorf("attach after the close: created = %v; want a fresh session", res["created"])
	}
	// x is no binding there (a bare word is then a command, which this
	// principal may not look up).
	if r := c2.call("exec", map[string]any{"src": "x"}); r.Error == nil {
		t.Errorf("old binding visible in the fresh session: %s", r.Result)
	}
	// The closed session's place was given back: the principal can hold
	// its whole bound again.
	c2.attach("other", tok)
}

// TestSessionHeldWhileBusy: a running task, or a subscription from a
// connection now attached elsewhere, keeps a session open.
func TestSessionHeldWhileBusy(t *testing.T) {
	k := startLimited(t, Limits{SessionsPerPrincipal: 4, TokenSessions: 8, OwnerSessions: 8, SessionIdle: 50 * time.Millisecond})
	c := k.dial(t)
	c.attach("busy", "")
	var st taskStarted
	c.ok("exec", map[string]any{"src": "while true { }", "async": true}, &st)
	c.conn.Close()
	time.Sleep(400 * time.Millisecond)
	if n := k.srv.sessions.len(); n != 1 {
		t.Fatalf("a session with a running task was closed (%d left)", n)
	}
	c2 := k.dial(t)
	if res := c2.attach("busy", ""); res["created"] != false {
		t.Fatal("the busy session was replaced")
	}
	c2.ok("task.cancel", map[string]any{"task": st.Task}, nil)

	// Subscribed in "busy", then attached to "other": both stay open.
	c2.ok("events.subscribe", map[string]any{"channel": "user.x"}, nil)
	c2.attach("other", "")
	time.Sleep(400 * time.Millisecond)
	if n := k.srv.sessions.len(); n != 2 {
		t.Fatalf("%d sessions open; want busy (subscribed) and other (attached)", n)
	}
	// Attached elsewhere without subscribing: let go.
	c2.attach("third", "")
	eventually(t, 5*time.Second, "unsubscribed, unattached session closed", func() bool { return k.srv.sessions.len() == 2 })
	c2.conn.Close()
	eventually(t, 5*time.Second, "all sessions closed", func() bool { return k.srv.sessions.len() == 0 })
}

// TestSessionIdleZeroKeepsSessions: --session-idle 0 never closes.
func TestSessionIdleZeroKeepsSessions(t *testing.T) {
	k := startLimited(t, Limits{SessionsPerPrincipal: 4, TokenSessions: 8, OwnerSessions: 8})
	c := k.dial(t)
	c.attach("keep", "")
	c.conn.Close()
	time.Sleep(300 * time.Millisecond)
	if n := k.srv.sessions.len(); n != 1 {
		t.Errorf("%d sessions; want the unheld one kept", n)
	}
}

// TestSettleLimits: one table (limitFlags) says what each field left at
// zero means; negative bounds and session counts below 1 are refused,
// naming the flag.
func TestSettleLimits(t *testing.T) {
	good := DefaultLimits()
	if err := settleLimits(&good); err != nil || good != DefaultLimits() {
		t.Fatalf("defaults: %v, changed to %+v", err, good)
	}
	for name, mut := range map[string]func(*Limits){
		"principal-sessions": func(l *Limits) { l.SessionsPerPrincipal = 0 },
		"token-sessions":     func(l *Limits) { l.TokenSessions = -1 },
		"owner-sessions":     func(l *Limits) { l.OwnerSessions = 0 },
		"session-idle":       func(l *Limits) { l.SessionIdle = -time.Second },
		"max-conns":          func(l *Limits) { l.MaxConns = -1 },
		"frame-timeout":      func(l *Limits) { l.FrameTimeout = -time.Second },
		"event-memory":       func(l *Limits) { l.EventMemory = -1 },
		"session-memory":     func(l *Limits) { l.SessionMemory = -1 },
	} {
		l := DefaultLimits()
		mut(&l)
		if err := settleLimits(&l); err == nil || !strings.Contains(err.Error(), "--"+name+" ") {
			t.Errorf("%s: %v", name, err)
		}
	}
	l := Limits{SessionsPerPrincipal: 1, TokenSessions: 1, OwnerSessions: 1}
	if err := settleLimits(&l); err != nil {
		t.Fatal(err)
	}
	d := DefaultLimits()
	if l.FrameMemory != d.FrameMemory || l.FrameTimeout != d.FrameTimeout || l.MaxConns != d.MaxConns || l.EventChannels != d.EventChannels {
		t.Errorf("transport and event fields left at zero did not take their defaults: %+v", l)
	}
	if l.SessionMemory != 0 || l.KernelMemory != 0 || l.MemoryLimit != 0 || l.SessionIdle != 0 {
		t.Errorf("a zero memory bound or idle period is none, not the default: %+v", l)
	}
}

// inotifyFDs counts this process's inotify descriptors.
func inotifyFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.Contains(l, "inotify") {
			n++
		}
	}
	return n
}

// TestIdleCloseEndsLiveStreams: watches and tails a session left running
// are closed with it, giving back their inotify descriptors.
func TestIdleCloseEndsLiveStreams(t *testing.T) {
	k := startLimited(t, Limits{SessionsPerPrincipal: 4, TokenSessions: 8, OwnerSessions: 8, SessionIdle: 100 * time.Millisecond})
	before := inotifyFDs(t)
	c := k.dial(t)
	c.attach("streams", "")
	var ex execResult
	src := `var w = watch("` + k.dir + `")` + "\n" + `var tl = tail("` + filepath.Join(k.dir, "log") + `")`
	if err := writeFile(filepath.Join(k.dir, "log"), "a\n"); err != nil {
		t.Fatal(err)
	}
	c.ok("exec", map[string]any{"src": src}, &ex)
	if got := inotifyFDs(t); got < before+2 {
		t.Fatalf("%d inotify descriptors with a watch and a tail running; want at least %d", got, before+2)
	}
	// Keep the stream values reachable, so only closing them (not the
	// garbage collector) can give the descriptors back.
	sess := k.srv.sessions.all()[0]
	w, _ := sess.interp.Lookup("w")
	tl, _ := sess.interp.Lookup("tl")
	c.conn.Close()
	eventually(t, 5*time.Second, "session closed", func() bool { return k.srv.sessions.len() == 0 })
	eventually(t, 5*time.Second, "inotify descriptors given back", func() bool { return inotifyFDs(t) <= before })
	runtime.KeepAlive(w)
	runtime.KeepAlive(tl)
}
