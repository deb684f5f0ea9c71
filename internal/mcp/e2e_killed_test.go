package mcp_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestE2EKernelKilledMidExec: the kernel is killed (SIGKILL) while direct
// shoal_execs wait for its answers. The call in flight ends with a tool
// error, none hangs (the test's context is the only clock), and once a
// kernel is back a later call is answered.
func TestE2EKernelKilledMidExec(t *testing.T) {
	k := newBase(t)
	k.start(t)
	s := connect(t, k)
	// A plain exec first: the connection has carried an answer.
	if res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "[3, 1, 2].sort()"}); res.IsError {
		t.Fatalf("exec: %+v", res.Content)
	}
	mark := filepath.Join(k.base, "started")
	const n = 3
	var wg sync.WaitGroup
	results := make([]*sdk.CallToolResult, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := "40 + 2"
			if i == 0 {
				src = "^sh -c 'touch " + mark + "; exec sleep 5'"
			}
			results[i], errs[i] = s.cs.CallTool(ctx(t), &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": src}})
		}()
	}
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := k.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-k.exited
	wg.Wait()
	if errs[0] != nil {
		t.Fatalf("the exec in flight: %v, want a tool error", errs[0])
	}
	if !results[0].IsError {
		t.Fatalf("the exec in flight when the kernel died: %+v, want a tool error", results[0])
	}
	for i := 1; i < n; i++ {
		if errs[i] != nil {
			t.Fatalf("exec %d: %v", i, errs[i])
		}
	}
	// The facade reconnects (its client's policy) once a kernel is back:
	// a later call is answered through a new socket.
	k.start(t)
	if res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "1 + 1"}); res.IsError {
		t.Fatalf("an exec after the kernel came back: %+v", res.Content)
	}
}
