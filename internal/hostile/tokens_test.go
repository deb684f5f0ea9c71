//go:build linux

package hostile

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// Token attack bounds, stated once.
const (
	tokensMemCap = 2 << 30
	tokensRSS    = 128 << 20
	// cutBound is how long after a revocation or an expiry a connection
	// may still be served: the contract's second, plus slack for a loaded
	// test machine.
	cutBound = 2 * time.Second
)

// shoalToken runs the real shoal-token against the kernel's store.
func (k *Kernel) shoalToken(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(Bin("shoal-token"), args...)
	cmd.Env = []string{"HOME=" + filepath.Dir(k.StateDir), "SHOAL_TOKEN_STORE=" + k.Store}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("shoal-token %q hung", args)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

var createdID = regexp.MustCompile(`created ([0-9a-f]{16})`)

// mint creates a token with shoal-token and returns its id and secret.
func (k *Kernel) mint(t *testing.T, args ...string) (id, secret string) {
	t.Helper()
	out, errs, code := k.shoalToken(t, append([]string{"create"}, args...)...)
	m := createdID.FindStringSubmatch(errs)
	if code != 0 || m == nil {
		t.Fatalf("shoal-token create %q: %d %s", args, code, errs)
	}
	return m[1], strings.TrimSpace(out)
}

// loopExecs runs "1 + 1" on c until it fails, reporting when and how.
func loopExecs(c *client.Client) <-chan loopResult {
	done := make(chan loopResult, 1)
	go func() {
		n := 0
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, err := c.Exec(ctx, client.ExecParams{Src: "1 + 1"})
			cancel()
			if err != nil {
				done <- loopResult{time.Now(), err, n}
				return
			}
			n++
		}
	}()
	return done
}

type loopResult struct {
	at     time.Time
	err    error
	served int
}

// rawAttached is a raw connection attached with a token and subscribed to
// user.ping.
type rawAttached struct {
	nc net.Conn
	r  *bufio.Reader
}

func (k *Kernel) rawSubscriber(t *testing.T, session, token string) *rawAttached {
	t.Helper()
	ra := &rawAttached{nc: k.Dial(t)}
	ra.r = bufio.NewReader(ra.nc)
	for i, req := range []string{
		fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session.attach","params":{"session":%q,"token":%q}}`, session, token),
		`{"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{"channel":"user.ping"}}`,
	} {
		SendFrame(t, ra.nc, req)
		if m := ReadFrame(t, ra.nc, ra.r, 10*time.Second); m["error"] != nil {
			t.Fatalf("setup %d: %s", i, m["error"])
		}
	}
	return ra
}

// awaitDetached reads frames until session.detached and returns its
// reason; event frames before it are allowed.
func (ra *rawAttached) awaitDetached(t *testing.T, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		m := ReadFrame(t, ra.nc, ra.r, time.Until(deadline))
		if string(m["method"]) == `"session.detached"` {
			var p struct {
				Reason string `json:"reason"`
			}
			json.Unmarshal(m["params"], &p)
			return p.Reason
		}
	}
}

// wantServedNothing sends an exec and checks that the answer is
// AUTH_FAILED and that no event arrives before it.
func (ra *rawAttached) wantServedNothing(t *testing.T) {
	t.Helper()
	SendFrame(t, ra.nc, `{"jsonrpc":"2.0","id":9,"method":"exec","params":{"src":"1 + 1"}}`)
	m := ReadFrame(t, ra.nc, ra.r, 10*time.Second)
	if m["method"] != nil {
		t.Fatalf("a cut connection still got %s %s", m["method"], m["params"])
	}
	var e struct {
		Code int `json:"code"`
	}
	if json.Unmarshal(m["error"], &e); e.Code != proto.CodeAuthFailed {
		t.Fatalf("a cut connection's exec answered %s %s", m["result"], m["error"])
	}
}

// TestHostileRevocation: revoking a token with shoal-token while a client
// loops execs and another is subscribed cuts both within the bound; the
// subscriber gets session.detached and no more events; the owner is served
// throughout.
func TestHostileRevocation(t *testing.T) {
	k := Start(t, Options{MemCap: tokensMemCap})
	hb := k.Heartbeat(t)
	id, secret := k.mint(t, "agent:revoked", "agent")
	_, other := k.mint(t, "agent:revoked", "agent")
	loop := loopExecs(k.Attach(t, "loop", secret))
	sub := k.rawSubscriber(t, "pub", secret)
	pub := k.Attach(t, "pub", other)
	gosub, err := k.Attach(t, "gosub", secret).Subscribe(Ctx(t), "user.ping", 0)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)

	if _, errs, code := k.shoalToken(t, "revoke", id); code != 0 {
		t.Fatalf("revoke: %s", errs)
	}
	revoked := time.Now()
	var end loopResult
	select {
	case end = <-loop:
	case <-time.After(10 * time.Second):
		t.Fatal("looping client still served 10 s after the revocation")
	}
	WantCode(t, end.err, proto.CodeAuthFailed)
	lag := end.at.Sub(revoked)
	t.Logf("looping client cut %v after shoal-token revoke returned (%d execs served)", lag, end.served)
	if lag > cutBound {
		t.Errorf("cut after %v; bound %v", lag, cutBound)
	}
	if reason := sub.awaitDetached(t, cutBound); reason != "token_revoked" {
		t.Errorf("session.detached reason %q", reason)
	}
	ctx, cancel := context.WithTimeout(Ctx(t), 10*time.Second)
	defer cancel()
	if _, err := pub.EventsPublish(ctx, "user.ping", "after"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	sub.wantServedNothing(t)
	// The Go client ends its subscriptions with ErrDetached.
	timeout := time.After(cutBound)
drain:
	for {
		select {
		case _, ok := <-gosub.Events():
			if !ok {
				break drain
			}
		case <-timeout:
			t.Fatal("Go client subscription still open after the revocation")
		}
	}
	if !errors.Is(gosub.Err(), client.ErrDetached) {
		t.Errorf("Go client subscription ended with %v; want ErrDetached", gosub.Err())
	}
	// The revoked secret attaches no more.
	c := k.Client(t)
	_, err = c.Attach(ctx, client.AttachParams{Session: "again", Token: secret})
	WantCode(t, err, proto.CodeAuthFailed)
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, tokensRSS)
}

// TestHostileExpiry: a token made with --ttl 2 is cut about two seconds
// later, with no change to the store.
func TestHostileExpiry(t *testing.T) {
	k := Start(t, Options{MemCap: tokensMemCap})
	hb := k.Heartbeat(t)
	made := time.Now() // the expiry is at most 2 s from here
	_, secret := k.mint(t, "agent:brief", "agent", "--ttl", "2")
	loop := loopExecs(k.Attach(t, "loop", secret))
	sub := k.rawSubscriber(t, "sub", secret)
	var end loopResult
	select {
	case end = <-loop:
	case <-time.After(10 * time.Second):
		t.Fatal("a 2 s token still served after 10 s")
	}
	WantCode(t, end.err, proto.CodeAuthFailed)
	life := end.at.Sub(made)
	t.Logf("2 s token cut after %v (%d execs served)", life, end.served)
	if life < 2*time.Second || life > 2*time.Second+cutBound {
		t.Errorf("cut after %v; want 2 s plus at most %v", life, cutBound)
	}
	if reason := sub.awaitDetached(t, cutBound); reason != "token_expired" {
		t.Errorf("session.detached reason %q", reason)
	}
	sub.wantServedNothing(t)
	hb.Stop(t)
	k.Alive(t)
}

// TestHostileTokenStore: a FIFO, a symbolic link or a group-writable
// directory at the store makes token attaches fail closed, promptly, with
// AUTH_FAILED, the kernel's log saying why and shoal-token refusing too;
// the owner's heartbeat is served throughout.
func TestHostileTokenStore(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, k *Kernel)
		want  string
	}{
		{"fifo", func(t *testing.T, k *Kernel) {
			os.Remove(k.Store)
			if err := syscall.Mkfifo(k.Store, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "is a FIFO"},
		{"symlink", func(t *testing.T, k *Kernel) {
			target := filepath.Join(t.TempDir(), "forged.json")
			data, err := os.ReadFile(k.Store)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(target, data, 0o644)
			os.Remove(k.Store)
			if err := os.Symlink(target, k.Store); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o644 {
					t.Errorf("the symlink's target was touched: %v %v", fi.Mode(), err)
				}
			})
		}, "symbolic link"},
		{"group-writable dir", func(t *testing.T, k *Kernel) {
			if err := os.Chmod(k.StateDir, 0o770); err != nil {
				t.Fatal(err)
			}
		}, "writable by group or others"},
		{"10 GB store", func(t *testing.T, k *Kernel) {
			// Sparse: refused by its size, never read (the kernel runs
			// under a 2 GiB address-space cap).
			if err := os.Truncate(k.Store, 10<<30); err != nil {
				t.Fatal(err)
			}
		}, "bound on a token store"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := Start(t, Options{MemCap: tokensMemCap})
			hb := k.Heartbeat(t)
			_, secret := k.mint(t, "agent:store", "agent")
			tc.plant(t, k)
			c := k.Client(t)
			deadline := time.Now().Add(cutBound)
			for {
				ctx, cancel := context.WithTimeout(Ctx(t), 5*time.Second)
				_, err := c.Attach(ctx, client.AttachParams{Session: "s", Token: secret})
				cancel()
				if err != nil {
					WantCode(t, err, proto.CodeAuthFailed)
					if !strings.Contains(err.Error(), tc.want) {
						t.Fatalf("AUTH_FAILED %q does not say %q", err, tc.want)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("token still attaches %v after the store was replaced", cutBound)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if !k.WaitStderr(tc.want, 5*time.Second) {
				t.Errorf("kernel log does not say why:\n%s", k.Stderr())
			}
			if _, errs, code := k.shoalToken(t, "list"); code != 1 || !strings.Contains(errs, tc.want) {
				t.Errorf("shoal-token list: exit %d, %q", code, errs)
			}
			if _, errs, code := k.shoalToken(t, "create", "agent:more", "agent"); code != 1 || !strings.Contains(errs, tc.want) {
				t.Errorf("shoal-token create: exit %d, %q", code, errs)
			}
			time.Sleep(200 * time.Millisecond) // let the heartbeat beat beside the broken store
			hb.Stop(t)
			k.Alive(t)
		})
	}
}

// TestHostileOwnerToken: shoal-token will not mint the owner, and a store
// forged to name uid:0 does not let a token attach as it.
func TestHostileOwnerToken(t *testing.T) {
	k := Start(t, Options{MemCap: tokensMemCap})
	for _, p := range []string{"uid:0", fmt.Sprintf("uid:%d", os.Geteuid()), "UID:0", "root"} {
		if _, errs, code := k.shoalToken(t, "create", p, "agent"); code == 0 || !strings.Contains(errs, "reserved") {
			t.Errorf("shoal-token create %s: exit %d %q", p, code, errs)
		}
	}
	_, secret := k.mint(t, "agent:forger", "agent")
	data, err := os.ReadFile(k.Store)
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(data), `"agent:forger"`, `"uid:0"`, 1)
	if err := os.WriteFile(k.Store, []byte(forged), 0o600); err != nil {
		t.Fatal(err)
	}
	c := k.Client(t)
	deadline := time.Now().Add(cutBound)
	for {
		ctx, cancel := context.WithTimeout(Ctx(t), 5*time.Second)
		res, err := c.Attach(ctx, client.AttachParams{Token: secret})
		cancel()
		if err != nil {
			WantCode(t, err, proto.CodeAuthFailed)
			break
		}
		if res.Principal == "uid:0" {
			t.Fatal("a forged store attached a token as uid:0")
		}
		if time.Now().After(deadline) {
			t.Fatal("the forged token still attaches")
		}
		time.Sleep(50 * time.Millisecond)
	}
	k.Alive(t)
}
