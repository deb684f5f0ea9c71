//go:build linux

package hostile

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
)

// Task attack bounds, stated once: the kernel's fixed bounds on a
// session's live tasks and running synchronous execs (internal/tasks), and
// what the kernel may take while a principal crosses both ten times over.
const (
	liveTasks       = 64  // tasks.MaxLive
	foregroundTasks = 256 // tasks.MaxForeground
	inflightPerConn = 16  // kernel.MaxInflightPerConn
	tasksMemCap     = 2 << 30
	tasksRSS        = 96 << 20
)

// holdTurn holds the session's turn without using the CPU, so every later
// exec of the session waits as a live task.
const holdTurn = "sleep 60s"

// TestHostileManyTasks: a token principal starts ten times the live-task
// bound of background execs and then ten times the foreground bound of
// synchronous ones in one session; every exec past a bound gets the typed
// refusal (-32010, quota_exceeded, live_tasks or foreground_tasks), the
// tasks within the bounds stay listed, and the owner is served throughout.
func TestHostileManyTasks(t *testing.T) {
	k := Start(t, Options{MemCap: tasksMemCap})
	hb := k.Heartbeat(t)
	tok := k.Token(t, "agent:tasks")
	c := k.Attach(t, "t", tok)
	ctx := Ctx(t)

	for i := range 10 * liveTasks {
		res, err := c.Exec(ctx, client.ExecParams{Src: holdTurn, Async: true})
		if i < liveTasks {
			if err != nil || !res.IsTask() {
				t.Fatalf("background exec %d within the bound: %+v, %v", i+1, res, err)
			}
			continue
		}
		wantRefusal(t, err, "live_tasks", liveTasks)
	}

	// Fill the foreground bound with synchronous execs pipelined over
	// connections of the session (each runs inflightPerConn at once);
	// they wait until the test ends.
	hold, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	for range foregroundTasks / inflightPerConn {
		fc := k.Attach(t, "t", tok)
		for range inflightPerConn {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := fc.Exec(hold, client.ExecParams{Src: holdTurn}); err != nil && !errors.Is(err, context.Canceled) && hold.Err() == nil {
					t.Errorf("waiting synchronous exec: %v", err)
				}
			}()
		}
	}
	waitTasks(t, c, liveTasks+foregroundTasks)
	for range 10 * foregroundTasks {
		_, err := c.Exec(ctx, client.ExecParams{Src: "1 + 1"})
		wantRefusal(t, err, "foreground_tasks", foregroundTasks)
	}
	waitTasks(t, c, liveTasks+foregroundTasks)

	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, tasksRSS)
}

// waitTasks waits until task.list on c shows n tasks.
func waitTasks(t *testing.T, c *client.Client, n int) {
	t.Helper()
	var list struct {
		Tasks []struct {
			Task string `json:"task"`
		} `json:"tasks"`
	}
	for range 500 {
		if err := c.Call(Ctx(t), "task.list", nil, &list); err != nil {
			t.Fatalf("task.list: %v", err)
		}
		if len(list.Tasks) == n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("task.list shows %d tasks, want %d", len(list.Tasks), n)
}
