//go:build linux

package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// PTY attack bounds, stated once.
const (
	// floodBytes is what the flooding program writes to its terminal.
	floodBytes = 100 << 20
	// ptyFloodGrowth bounds how much the kernel's peak RSS may pass its
	// RSS before the flood: one PTY keeps two 80×24 grids, 256 KiB of
	// scrollback and at most 2 MiB of pending output (docs/kernel.md,
	// "PTYs"); the rest is the collector's headroom over the emulator's
	// garbage.
	ptyFloodGrowth = 96 << 20
	ptyMemCap      = 2 << 30
	// The bounds the PTY test sets, each crossed ten times.
	ptySession, ptyPrincipal, ptyKernel = 4, 8, 12
)

type ptyRead struct {
	Screen  []string `json:"screen"`
	Alive   bool     `json:"alive"`
	Skipped int64    `json:"skipped_bytes"`
	Exit    *struct {
		Status *int `json:"status"`
	} `json:"exit"`
}

// TestHostilePTYFlood: a program writing 100 MB to its terminal runs to
// its end without being held up by the kernel, the screen shows its last
// output, the kernel's memory grows by less than the documented bound,
// and the owner is served throughout.
func TestHostilePTYFlood(t *testing.T) {
	k := Start(t, Options{MemCap: ptyMemCap})
	hb := k.Heartbeat(t)
	c := k.Attach(t, "flood", "")
	ctx := Ctx(t)
	before := k.RSS(t)
	var o struct {
		PtyID string `json:"pty_id"`
	}
	line := strings.Repeat("0123456789", 7)
	script := fmt.Sprintf("yes %s | head -c %d; echo; echo flood-done", line, floodBytes)
	start := time.Now()
	if err := c.Call(ctx, proto.MethodPTYOpen, map[string]any{"cmd": "sh", "args": []string{"-c", script}}, &o); err != nil {
		t.Fatal(err)
	}
	var r ptyRead
	for {
		if err := c.Call(ctx, proto.MethodPTYRead, map[string]any{"pty_id": o.PtyID, "wait_ms": 1000}, &r); err != nil {
			t.Fatal(err)
		}
		if !r.Alive {
			break
		}
		if time.Since(start) > 90*time.Second {
			t.Fatalf("the flooding program has not finished after 90 s: blocked on its terminal?")
		}
	}
	took := time.Since(start)
	if r.Exit == nil || r.Exit.Status == nil || *r.Exit.Status != 0 || !strings.Contains(strings.Join(r.Screen, "\n"), "flood-done") {
		t.Fatalf("after the flood: exit %+v, screen %q", r.Exit, r.Screen)
	}
	peak := k.PeakRSS(t)
	t.Logf("100 MB through a PTY in %v; %d MB skipped unrendered; kernel RSS %d MiB before, peak %d MiB",
		took.Round(time.Millisecond), r.Skipped>>20, before>>20, peak>>20)
	if peak-before > ptyFloodGrowth {
		t.Errorf("kernel peak RSS grew by %d MiB during the flood, bound %d MiB", (peak-before)>>20, ptyFloodGrowth>>20)
	}
	if err := c.Call(ctx, proto.MethodPTYClose, map[string]any{"pty_id": o.PtyID}, nil); err != nil {
		t.Fatal(err)
	}
	hb.Stop(t)
}

// TestHostilePTYBounds: a token principal opens ten times the session
// bound of PTYs in one session, ten times the principal bound across its
// sessions, and a second principal ten times the kernel bound; every open
// past a bound gets the typed refusal naming it, nothing more is started,
// the PTYs within the bounds keep working, and the owner is served
// throughout.
func TestHostilePTYBounds(t *testing.T) {
	base, err := os.MkdirTemp("", "hp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	pol := filepath.Join(base, "policy.toml")
	var text strings.Builder
	for _, p := range []string{"agent:pa", "agent:pb"} {
		fmt.Fprintf(&text, `[principal.%q]
proc_spawn = ["sh"]
env_read = ["PATH"]
[principal.%q.fs]
read = ["%s/hk*/work/**", "/usr/**", "/bin/**", "/lib/**", "/lib64/**", "/etc/ld.so.cache"]
`, p, p, os.TempDir())
	}
	if err := os.WriteFile(pol, []byte(text.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	k := Start(t, Options{MemCap: ptyMemCap, Flags: []string{"--policy", pol,
		"--session-ptys", fmt.Sprint(ptySession), "--principal-ptys", fmt.Sprint(ptyPrincipal), "--kernel-ptys", fmt.Sprint(ptyKernel)}})
	hb := k.Heartbeat(t)
	ctx := Ctx(t)
	open := func(c *client.Client) (string, error) {
		var o struct {
			PtyID string `json:"pty_id"`
		}
		err := c.Call(ctx, proto.MethodPTYOpen, map[string]any{"cmd": "sh", "args": []string{"-c", "echo up; exec sleep 600"}}, &o)
		return o.PtyID, err
	}
	var opened []string
	var first *client.Client
	refused := 0
	tryOpen := func(c *client.Client, budget string, limit int) {
		id, err := open(c)
		if err == nil {
			opened = append(opened, id)
			return
		}
		wantRefusal(t, err, budget, limit)
		refused++
	}

	// Ten times the session bound in one session.
	ta := k.Token(t, "agent:pa")
	first = k.Attach(t, "s0", ta)
	for range 10 * ptySession {
		tryOpen(first, "session_ptys", ptySession)
	}
	if len(opened) != ptySession {
		t.Fatalf("%d PTYs opened in one session, bound %d", len(opened), ptySession)
	}
	// Ten times the principal bound across its other sessions.
	for i := range 10 * ptyPrincipal / ptySession {
		c := k.Attach(t, fmt.Sprintf("s%d", i+1), ta)
		for range ptySession {
			tryOpen(c, "principal_ptys", ptyPrincipal)
		}
	}
	if len(opened) != ptyPrincipal {
		t.Fatalf("%d PTYs opened by one principal, bound %d", len(opened), ptyPrincipal)
	}
	// Ten times the kernel bound by another principal, four per session.
	tb := k.Token(t, "agent:pb")
	for i := range 10 * ptyKernel / ptySession {
		c := k.Attach(t, fmt.Sprintf("b%d", i), tb)
		for range ptySession {
			tryOpen(c, "kernel_ptys", ptyKernel)
		}
	}
	if len(opened) != ptyKernel {
		t.Fatalf("%d PTYs opened in the kernel, bound %d", len(opened), ptyKernel)
	}
	k.Alive(t)
	// The first PTYs still answer their owner.
	var r ptyRead
	if err := first.Call(ctx, proto.MethodPTYRead, map[string]any{"pty_id": opened[0], "wait_ms": 2000}, &r); err != nil || !r.Alive {
		t.Fatalf("a PTY within the bounds: %+v, %v", r, err)
	}
	// Closing one makes room for one.
	if err := first.Call(ctx, proto.MethodPTYClose, map[string]any{"pty_id": opened[0]}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := open(first); err != nil {
		t.Fatalf("open after a close: %v", err)
	}
	t.Logf("%d PTYs opened, %d typed refusals", len(opened), refused)
	k.WantRSSUnder(t, 256<<20)
	hb.Stop(t)
}
