package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/mcp"
)

// TestApprovalMultiRoundTrip: a client speaking 2026-07-28, where a
// server sends no requests of its own, gets the approval question as an
// input request and answers it by calling again (the SDK's client does
// this itself): accept writes the file, decline writes nothing, and a
// forged request state naming another plan approves nothing. The
// facade runs in this process, offering every revision, over the SDK's
// in-memory transport, on a real kernel.
func TestApprovalMultiRoundTrip(t *testing.T) {
	k, worker, lead, _ := approvalKernel(t)
	a := &asker{answer: answer("accept")}
	s, c := inProcess(t, k, worker, lead, sdk.NewClient(&sdk.Implementation{Name: "mrtr", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(c context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			a.mu.Lock()
			a.questions = append(a.questions, r.Params.Message)
			a.mu.Unlock()
			return a.answer(c)
		},
	}))
	cs := s.cs

	target := filepath.Join(k.dir, "mrtr-accepted.txt")
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": `"hi".save("` + target + `")`})
	if res.IsError {
		t.Fatalf("accepted: %s", text(res))
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "hi" || len(a.asked()) != 1 || !strings.Contains(a.asked()[0], "fs_write "+target) {
		t.Fatalf("after accept: %q %v; questions %q", b, err, a.asked())
	}

	a.answer = answer("decline")
	target = filepath.Join(k.dir, "mrtr-declined.txt")
	res = s.call(t, ctx(t), "shoal_exec", map[string]any{"src": `"no".save("` + target + `")`})
	wantToolError(t, "declined", res, -32011)
	wantAbsent(t, target)

	// A stored, pending plan, and a call that forges a state naming it
	// with an accept: the forged state is ignored, the call's own
	// question is asked (and declined), and the plan stays pending.
	other := filepath.Join(k.dir, "mrtr-other.txt")
	res = s.call(t, ctx(t), "shoal_plan", map[string]any{"src": `"x".save("` + other + `")`})
	var p struct {
		PlanRef string `json:"plan_ref"`
	}
	structured(t, res, &p)
	n := len(a.asked())
	forged, err := cs.CallTool(ctx(t), &sdk.CallToolParams{
		Name:           "shoal_exec",
		Arguments:      map[string]any{"src": `"x".save("` + other + `")`},
		RequestState:   p.PlanRef + ".Zm9yZ2Vk",
		InputResponses: sdk.InputResponseMap{"shoal_approval": &sdk.ElicitResult{Action: "accept"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	e := wantToolError(t, "forged state", forged, -32011)
	var d heldData
	if json.Unmarshal(e.Data, &d) != nil || d.PlanRef == p.PlanRef || len(a.asked()) != n+1 {
		t.Fatalf("forged state: %s %s; questions %d → %d", e.Message, e.Data, n, len(a.asked()))
	}
	wantAbsent(t, other)
	var pg struct {
		State string `json:"state"`
	}
	if err := c.Call(ctx(t), "plan.get", map[string]any{"plan_ref": p.PlanRef}, &pg); err != nil || pg.State != "pending" {
		t.Fatalf("the plan the forged state named = %+v, %v", pg, err)
	}
}

// inProcess runs a facade in this process, offering every revision
// (2026-07-28 included), attached to k's session "work" with token (and
// approver, when not empty), and connects the SDK client cl to it
// over the in-memory transport. It returns the client's session and the
// facade's kernel connection.
func inProcess(t *testing.T, k *kernel, token, approver string, cl *sdk.Client) (*session, *client.Client) {
	t.Helper()
	c, err := client.Dial(ctx(t), k.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Attach(ctx(t), client.AttachParams{Session: "work", Token: token}); err != nil {
		t.Fatal(err)
	}
	restore := mcp.OfferEveryRevision()
	f, err := mcp.New(c, io.Discard)
	restore()
	if err != nil {
		t.Fatal(err)
	}
	if approver != "" {
		mcp.SetApprover(f, k.sock, "work", approver)
	}
	st, ct := sdk.NewInMemoryTransports()
	runCtx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	go f.Run(runCtx, st)
	cs, err := cl.Connect(ctx(t), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v < "2026-07-28" {
		t.Fatalf("negotiated %s, want 2026-07-28 or later", v)
	}
	return &session{cs: cs}, c
}

// TestTasksExtensionPerRequest: a 2026-07-28 client declares the tasks
// extension in each request's capabilities (no initialize); its long
// call answers a task it polls to the result.
func TestTasksExtensionPerRequest(t *testing.T) {
	k := startKernel(t)
	caps := &sdk.ClientCapabilities{}
	caps.AddExtension(mcp.TasksExtension, map[string]any{})
	cl := sdk.NewClient(&sdk.Implementation{Name: "tasks", Version: "1"}, &sdk.ClientOptions{Capabilities: caps})
	for _, m := range []string{"tasks/get", "tasks/cancel"} {
		if err := sdk.AddSendingCustomMethod[*taskReq, *taskRes](cl, m); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := inProcess(t, k, "", "", cl)
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "^sh -c 'sleep 0.8; echo later'"})
	id := taskOfCall(t, res)
	done := pollTask(t, s, id, "completed")
	if !strings.Contains(string(done.Result), "later") {
		t.Fatalf("the task's result = %s", done.Result)
	}
}
