package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// procsWith lists the pids whose command line contains marker.
func procsWith(t *testing.T, marker string) []string {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		if strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), marker) {
			pids = append(pids, strings.Split(d, "/")[2])
		}
	}
	return pids
}

// TestE2ECancelledCallEndsItsProcessTree: a long shoal_exec whose request
// the client cancels ends at once with every process it started (a
// background grandchild included); the next call answers at once.
func TestE2ECancelledCallEndsItsProcessTree(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	marker := "301.25" + time.Now().Format("0405")
	src := "^sh -c 'sleep " + marker + " & sleep " + marker + "1; wait'"
	cctx, cancel := context.WithCancel(ctx(t))
	done := make(chan error, 1)
	go func() {
		_, err := s.cs.CallTool(cctx, &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": src}})
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for len(procsWith(t, marker)) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the long call's processes never appeared; stderr:\n%s", s.errText())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // well past ForegroundWait: the exec is a task now
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the cancelled call answered without an error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
	start := time.Now()
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "40 + 2"})
	var r execResult
	structured(t, res, &r)
	if res.IsError || r.Render != "42" {
		t.Fatalf("the next call = %s", text(res))
	}
	// Liveness only: "at once" is checked against a generous bound.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the next call took %v", d)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left := procsWith(t, marker)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the cancelled call remain: %v", left)
		}
	}
}

// TestE2ECancelInTheFirstMoment: a call cancelled before the kernel
// handed it over as a task is cancelled all the same.
func TestE2ECancelInTheFirstMoment(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	marker := "302.5" + time.Now().Format("0405")
	cctx, cancel := context.WithCancel(ctx(t))
	done := make(chan error, 1)
	go func() {
		_, err := s.cs.CallTool(cctx, &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "^sh -c 'exec sleep " + marker + "'"}})
		done <- err
	}()
	for deadline := time.Now().Add(20 * time.Second); len(procsWith(t, marker)) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the sleep never started")
		}
	}
	cancel()
	<-done
	for deadline := time.Now().Add(10 * time.Second); len(procsWith(t, marker)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the sleep of the cancelled call remains")
		}
	}
}

// TestE2EProgress: a call that prints for over 3 s, sent with a progress
// token, gets progress notifications carrying what it prints, then its
// value.
func TestE2EProgress(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	p := &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{
		"src": "^sh -c 'for i in 1 2 3 4 5 6 7; do echo tick$i; sleep 0.5; done'", "position": "stmt"}}
	p.SetProgressToken("tok-1")
	res, err := s.cs.CallTool(ctx(t), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("the long call failed: %s", text(res))
	}
	got := s.notes.progresses()
	if len(got) < 2 {
		t.Fatalf("%d progress notifications, want at least 2 for a 3.5 s call", len(got))
	}
	var printed string
	for i, n := range got {
		// Each is either output (progress_output.go) or, when nothing was
		// printed for a second, a status line.
		_, isOutput := n.Meta["shoal/offset"]
		if n.ProgressToken != "tok-1" || (!isOutput && !strings.Contains(n.Message, "running for")) {
			t.Errorf("progress %d = %+v", i, n)
		}
		if isOutput {
			printed += n.Message
		}
		if i > 0 && n.Progress <= got[i-1].Progress {
			t.Errorf("progress went %v then %v", got[i-1].Progress, n.Progress)
		}
	}
	t.Logf("last progress: %s", got[len(got)-1].Message)
	// The notifications carry what the call printed.
	if !strings.HasPrefix(printed, "tick1\ntick2\n") || !strings.HasSuffix(printed, "tick7\n") {
		t.Errorf("the progress notifications carried %q, not the output", printed)
	}
	// Without a token, no notifications.
	before := len(s.notes.progresses())
	s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "^sh -c 'sleep 1.5'"})
	if n := len(s.notes.progresses()); n != before {
		t.Errorf("a call without a progress token got %d notifications", n-before)
	}
}

// TestE2EConcurrentCalls: a long call does not hold up the next one.
func TestE2EConcurrentCalls(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	long := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, _ := s.cs.CallTool(ctx(t), &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "^sh -c 'sleep 4'"}})
		long <- res
	}()
	time.Sleep(800 * time.Millisecond)
	start := time.Now()
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "2 * 21"})
	var r execResult
	structured(t, res, &r)
	if r.Render != "42" {
		t.Fatalf("the concurrent call = %s", text(res))
	}
	select {
	case <-long:
		t.Fatalf("the short call answered only after the long one (%v)", time.Since(start))
	default:
	}
	if res := <-long; res == nil || res.IsError {
		t.Fatalf("the long call: %v", res)
	}
}

// TestE2ECancelledApplyEndsItsProcess: a cancelled shoal_apply cancels
// the apply's task in the kernel, its process with it.
func TestE2ECancelledApplyEndsItsProcess(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	marker := "303.5" + time.Now().Format("0405")
	res := s.call(t, ctx(t), "shoal_plan", map[string]any{"src": "^sh -c 'exec sleep " + marker + "'"})
	var p struct {
		PlanRef string `json:"plan_ref"`
		State   string `json:"state"`
	}
	structured(t, res, &p)
	if p.State != "allowed" {
		t.Fatalf("the owner's plan = %s", text(res))
	}
	cctx, cancel := context.WithCancel(ctx(t))
	done := make(chan error, 1)
	go func() {
		_, err := s.cs.CallTool(cctx, &sdk.CallToolParams{Name: "shoal_apply", Arguments: map[string]any{"plan_ref": p.PlanRef}})
		done <- err
	}()
	for deadline := time.Now().Add(20 * time.Second); len(procsWith(t, marker)) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the applied sleep never started")
		}
	}
	cancel()
	<-done
	for deadline := time.Now().Add(10 * time.Second); len(procsWith(t, marker)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled apply's process remains")
		}
	}
	res = s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "1 + 1"})
	if text(res) != "2" {
		t.Fatalf("the next call = %s", text(res))
	}
}
