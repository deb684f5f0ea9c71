package kernel_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/kernel"
)

// TestE2EExecWatch: a watched synchronous exec delivers its task's output
// events to the client while it runs (the program waits for a gate the
// test creates from the callback, on the first output), the exec answers
// as usual, and the kernel's subscription ends with the task: the client
// may subscribe to the channel itself afterwards, and a second watched
// exec sees only its own task's events.
func TestE2EExecWatch(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	k := serveConfigE2E(t, sock, dir, store, kernel.Config{Version: "e2e", TokenStore: store, Dir: dir,
		Env: []string{"HOME=" + filepath.Dir(dir), "PATH=/usr/bin:/bin"}})
	ctx := testCtx(t)
	c := k.dial(t)
	if _, err := c.Attach(ctx, client.AttachParams{Session: "watch"}); err != nil {
		t.Fatal(err)
	}
	gate := filepath.Join(dir, "gate")
	src := `sh { echo first; while [ ! -e gate ]; do sleep 0.05; done; echo second }; 5`
	var channels []string
	var out strings.Builder
	opened := false
	res, err := c.ExecWatch(ctx, client.ExecParams{Src: src}, func(ev client.Event) {
		channels = append(channels, ev.Channel)
		var o struct {
			Kind string `json:"kind"`
			Text string `json:"text"`
		}
		if json.Unmarshal(ev.Payload, &o) == nil && o.Kind == "output" {
			out.WriteString(o.Text)
			if !opened && strings.Contains(out.String(), "first\n") {
				opened = true
				if err := os.WriteFile(gate, nil, 0o600); err != nil {
					t.Error(err)
				}
			}
		}
	})
	if err != nil || res.Render != "5" {
		t.Fatalf("watched exec = %+v, %v", res, err)
	}
	if !opened || len(channels) == 0 || !strings.HasPrefix(channels[0], "task.") {
		t.Fatalf("watched exec's events: %v, output %q", channels, out.String())
	}
	for _, ch := range channels {
		if ch != channels[0] {
			t.Errorf("events of %s and %s in one watched exec", channels[0], ch)
		}
	}
	s, err := c.Subscribe(ctx, channels[0], 0)
	if err != nil {
		t.Fatalf("subscribing to %s after its watched exec: %v", channels[0], err)
	}
	_ = s.Unsubscribe(ctx)

	var second []string
	if _, err := c.ExecWatch(ctx, client.ExecParams{Src: `sh { echo again }`}, func(ev client.Event) {
		second = append(second, ev.Channel)
	}); err != nil {
		t.Fatal(err)
	}
	for _, ch := range second {
		if ch == channels[0] {
			t.Errorf("the second watched exec got an event of the first's %s", ch)
		}
	}
}
