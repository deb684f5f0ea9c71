package kernel

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	goclient "github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/proto"
)

// callCollecting sends a request and reads frames until its response,
// returning the response and every notification read before it.
func (c *client) callCollecting(method string, params any) (*rpcResponse, []*rpcResponse) {
	c.t.Helper()
	c.id++
	req := map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method}
	if params != nil {
		req["params"] = params
	}
	c.sendRaw(string(mustJSON(c.t, req)))
	var notes []*rpcResponse
	for {
		r := c.recv()
		if r.Method != "" {
			notes = append(notes, r)
			continue
		}
		if string(r.ID) != strconv.Itoa(c.id) {
			c.t.Fatalf("%s: response id %s, want %d", method, r.ID, c.id)
		}
		return r, notes
	}
}

// notification is a notification frame's params.
type notification struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// awaitNotification reads frames until one with method arrives.
func (c *client) awaitNotification(method string, within time.Duration) json.RawMessage {
	c.t.Helper()
	old := c.wait
	c.wait = within
	defer func() { c.wait = old }()
	for {
		line, err := c.readLine()
		if err != nil {
			c.t.Fatalf("no %s notification within %v: %v", method, within, err)
		}
		var n notification
		if json.Unmarshal(line, &n) == nil && n.Method == method {
			return n.Params
		}
	}
}

// wantAuthFailed checks an AUTH_FAILED answer and its reason.
func wantAuthFailed(t *testing.T, r *rpcResponse, reason string) {
	t.Helper()
	if r.Error == nil || r.Error.Code != proto.CodeAuthFailed {
		t.Fatalf("answer %+v; want AUTH_FAILED", r)
	}
	var d struct {
		Reason string `json:"reason"`
	}
	if reason != "" {
		if err := json.Unmarshal(r.Error.Data, &d); err != nil || d.Reason != reason {
			t.Errorf("AUTH_FAILED data %s; want reason %s", r.Error.Data, reason)
		}
	}
}

// execLoop runs "1 + 1" on cl until it fails and reports when and how.
func execLoop(cl *goclient.Client) <-chan loopEnd {
	done := make(chan loopEnd, 1)
	go func() {
		n := 0
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, err := cl.Exec(ctx, goclient.ExecParams{Src: "1 + 1"})
			cancel()
			if err != nil {
				done <- loopEnd{at: time.Now(), err: err, served: n}
				return
			}
			n++
		}
	}()
	return done
}

type loopEnd struct {
	at     time.Time
	err    error
	served int
}

func dialClient(t *testing.T, k *testKernel, session, token string) *goclient.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := goclient.Dial(ctx, k.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	if _, err := cl.Attach(ctx, goclient.AttachParams{Session: session, Token: token}); err != nil {
		t.Fatal(err)
	}
	return cl
}

// TestRevokeCutsAttachment: revoking a token detaches, within a second,
// every connection attached with it: a looping exec gets AUTH_FAILED, a
// subscriber gets session.detached and no more events, every later
// request answers AUTH_FAILED until a new attach, and the tasks started
// through it are cancelled. Another token of the same principal is not
// affected.
func TestRevokeCutsAttachment(t *testing.T) {
	k := startKernel(t)
	id, tok := k.token(t, "agent:r", "p")
	_, tok2 := k.token(t, "agent:r", "p")

	sub := k.dial(t)
	sub.attach("r", tok)
	sub.ok("events.subscribe", map[string]any{"channel": "user.ping"}, nil)
	var st taskStarted
	sub.ok("exec", map[string]any{"src": "while true { }", "async": true}, &st)

	pub := k.dial(t)
	pub.attach("r", tok2)
	pub.ok("events.publish", map[string]any{"channel": "user.ping", "payload": "before"}, nil)
	if params := sub.awaitNotification("event", 5*time.Second); !strings.Contains(string(params), "before") {
		t.Fatalf("subscriber got %s", params)
	}

	loop := execLoop(dialClient(t, k, "loop", tok))
	time.Sleep(100 * time.Millisecond)

	revoked := time.Now()
	if err := auth.Open(k.store).Revoke(id); err != nil {
		t.Fatal(err)
	}
	var end loopEnd
	select {
	case end = <-loop:
	case <-time.After(5 * time.Second):
		t.Fatal("exec loop still served 5 s after the revocation")
	}
	lag := end.at.Sub(revoked)
	t.Logf("exec loop cut %v after the revocation (%d execs served)", lag, end.served)
	if code, _ := goclient.ErrorCode(end.err); code != proto.CodeAuthFailed {
		t.Errorf("loop ended with %v; want AUTH_FAILED", end.err)
	}
	if lag > 2*time.Second {
		t.Errorf("cut %v after the revocation; the bound is 1 s", lag)
	}

	var d detachedParams
	if err := json.Unmarshal(sub.awaitNotification(proto.MethodSessionDetached, 5*time.Second), &d); err != nil {
		t.Fatal(err)
	}
	if d.Reason != cutRevoked || d.Token != id || d.Principal != "agent:r" || d.Session != "r" {
		t.Errorf("session.detached %+v", d)
	}

	// Events published now reach nobody on the cut connection.
	pub.ok("events.publish", map[string]any{"channel": "user.ping", "payload": "after"}, nil)
	time.Sleep(100 * time.Millisecond)
	for _, m := range []string{"exec", "kernel.info", "parse", "events.read", "task.list"} {
		r, notes := sub.callCollecting(m, map[string]any{"src": "1", "channel": "user.ping"})
		wantAuthFailed(t, r, cutRevoked)
		for _, n := range notes {
			t.Errorf("cut connection still got %s", n.Method)
		}
	}

	// The task started through the revoked token is cancelled.
	eventually(t, 5*time.Second, "task cancelled", func() bool {
		var rec struct {
			State string `json:"state"`
		}
		pub.ok("task.get", map[string]any{"task": st.Task}, &rec)
		return rec.State == "cancelled"
	})
	// The revoked secret no longer attaches; another credential does.
	wantAuthFailed(t, sub.call("session.attach", map[string]any{"session": "r", "token": tok}), "")
	sub.attach("r", tok2)
	var ex execResult
	sub.ok("exec", map[string]any{"src": "1 + 1"}, &ex)
	pub.ok("exec", map[string]any{"src": "1 + 1"}, &ex)
}

// TestTokenExpiryCutsAttachment: a token with a one-second life is cut
// when it expires, with no change to the store at all.
func TestTokenExpiryCutsAttachment(t *testing.T) {
	k := startKernel(t)
	created := time.Now() // the expiry is at most a second from here
	_, tok, err := auth.Open(k.store).Create("agent:brief", "p", nil, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	loop := execLoop(dialClient(t, k, "x", tok))
	sub := k.dial(t)
	sub.attach("x", tok)
	var end loopEnd
	select {
	case end = <-loop:
	case <-time.After(6 * time.Second):
		t.Fatal("exec loop still served 6 s after a 1 s token was made")
	}
	life := end.at.Sub(created)
	t.Logf("1 s token cut after %v (%d execs served)", life, end.served)
	if code, _ := goclient.ErrorCode(end.err); code != proto.CodeAuthFailed {
		t.Errorf("loop ended with %v; want AUTH_FAILED", end.err)
	}
	if life < 900*time.Millisecond || life > 3*time.Second {
		t.Errorf("cut after %v; want about 1 s (at most 1 s after expiry)", life)
	}
	var d detachedParams
	if err := json.Unmarshal(sub.awaitNotification(proto.MethodSessionDetached, 5*time.Second), &d); err != nil {
		t.Fatal(err)
	}
	if d.Reason != cutExpired {
		t.Errorf("reason %q; want %s", d.Reason, cutExpired)
	}
	wantAuthFailed(t, sub.call("exec", map[string]any{"src": "1"}), cutExpired)
}

// TestStoreGoneBadCutsAttachment: a store that stops being trustworthy
// (here its directory turns group-writable) fails closed for attached
// connections too; the owner is unaffected.
func TestStoreGoneBadCutsAttachment(t *testing.T) {
	k := startKernel(t)
	_, tok := k.token(t, "agent:s", "p")
	sub := k.dial(t)
	sub.attach("s", tok)
	dir := filepath.Dir(k.store)
	if err := os.Chmod(dir, 0o770); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	var d detachedParams
	if err := json.Unmarshal(sub.awaitNotification(proto.MethodSessionDetached, 5*time.Second), &d); err != nil {
		t.Fatal(err)
	}
	if d.Reason != cutStoreUnavailable || !strings.Contains(d.Message, "writable by group or others") {
		t.Errorf("session.detached %+v", d)
	}
	r := sub.call("session.attach", map[string]any{"session": "s", "token": tok})
	wantAuthFailed(t, r, "")
	if !strings.Contains(r.Error.Message, "writable by group or others") {
		t.Errorf("attach message %q does not say why", r.Error.Message)
	}
	owner := k.dial(t)
	owner.attach("", "")
	var ex execResult
	owner.ok("exec", map[string]any{"src": "1 + 1"}, &ex)
}

// TestHostileStoreAttach: whatever is planted at the store, attaching by
// token fails closed, promptly, with AUTH_FAILED saying why, and the owner
// still attaches and is served.
func TestHostileStoreAttach(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, store string)
		want  string
	}{
		{"fifo", func(t *testing.T, store string) {
			os.Remove(store)
			if err := syscall.Mkfifo(store, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "is a FIFO"},
		{"symlink", func(t *testing.T, store string) {
			target := filepath.Join(t.TempDir(), "real.json")
			if err := os.Rename(store, target); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, store); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
		{"group-writable dir", func(t *testing.T, store string) {
			if err := os.Chmod(filepath.Dir(store), 0o770); err != nil {
				t.Fatal(err)
			}
		}, "writable by group or others"},
		{"forged owner principal", func(t *testing.T, store string) {
			rewriteStore(t, store, func(rec map[string]any) { rec["principal"] = "uid:" + strconv.Itoa(os.Geteuid()) })
		}, "reserved for the kernel owner"},
		{"forged root principal", func(t *testing.T, store string) {
			rewriteStore(t, store, func(rec map[string]any) { rec["principal"] = "uid:0" })
		}, "reserved for the kernel owner"},
		{"oversized", func(t *testing.T, store string) {
			if err := os.Truncate(store, 10<<30); err != nil {
				t.Fatal(err)
			}
		}, "bound on a token store"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := startKernel(t)
			_, tok := k.token(t, "agent:h", "p")
			tc.plant(t, k.store)
			t.Cleanup(func() { os.Chmod(filepath.Dir(k.store), 0o700) })
			c := k.dial(t)
			c.wait = 5 * time.Second
			eventually(t, 3*time.Second, "hostile store refused", func() bool {
				r := c.call("session.attach", map[string]any{"session": "h", "token": tok})
				return r.Error != nil && r.Error.Code == proto.CodeAuthFailed && strings.Contains(r.Error.Message, tc.want)
			})
			owner := k.dial(t)
			owner.attach("", "")
			var ex execResult
			owner.ok("exec", map[string]any{"src": "1 + 1"}, &ex)
		})
	}
}

// rewriteStore edits every token record of the store in place.
func rewriteStore(t *testing.T, store string, edit func(map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	toks, ok := doc["tokens"].([]any)
	if !ok {
		t.Fatal("store has no tokens")
	}
	for _, r := range toks {
		edit(r.(map[string]any))
	}
	out, _ := json.Marshal(doc)
	if err := os.WriteFile(store, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSecretWithSpacesRefused: the kernel takes the secret exactly.
func TestSecretWithSpacesRefused(t *testing.T) {
	k := startKernel(t)
	_, tok := k.token(t, "agent:sp", "p")
	c := k.dial(t)
	for _, bad := range []string{" " + tok, tok + " ", tok + "\n", "\t" + tok} {
		wantAuthFailed(t, c.call("session.attach", map[string]any{"token": bad}), "")
	}
	c.attach("", tok)
}
