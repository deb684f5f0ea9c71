package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/diewithparent"
	"github.com/shoalgo/shoal/internal/mcp"
)

// approvalPolicy: agent:worker may read and write the working directory
// but every plan of its needs approval; human:lead approves; agent:peer
// may not approve.
const approvalPolicy = `
[principal."agent:worker"]
fs.read = ["DIR", "DIR/**"]
fs.write = ["DIR", "DIR/**"]
auto_apply = "never"

[principal."human:lead"]
fs.read = ["DIR", "DIR/**"]
approve = true

[principal."agent:peer"]
fs.read = ["DIR", "DIR/**"]
`

// approvalKernel starts a kernel under approvalPolicy and returns it with
// the tokens of the worker, the lead and the peer.
func approvalKernel(t *testing.T) (k *kernel, worker, lead, peer string) {
	t.Helper()
	k = newBase(t)
	policy := filepath.Join(k.base, "policy.toml")
	if err := os.WriteFile(policy, []byte(strings.ReplaceAll(approvalPolicy, "DIR", k.dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	k.start(t, "--policy", policy)
	store := auth.Open(k.store)
	var secrets []string
	for _, p := range []string{"agent:worker", "human:lead", "agent:peer"} {
		_, secret, err := store.Create(p, "agent", nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, secret)
	}
	return k, secrets[0], secrets[1], secrets[2]
}

// asker is an MCP client's user: it records each question and answers
// with answer (which may block).
type asker struct {
	mu        sync.Mutex
	questions []string
	answer    func(context.Context) (*sdk.ElicitResult, error)
}

func (a *asker) asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.questions...)
}

// connectAsking starts shoal-mcp with args against k through an SDK
// client that declares elicitation when a is not nil.
func connectAsking(t *testing.T, k *kernel, a *asker, args ...string) *session {
	t.Helper()
	opts := &sdk.ClientOptions{}
	if a != nil {
		opts.ElicitationHandler = func(c context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			a.mu.Lock()
			a.questions = append(a.questions, r.Params.Message)
			a.mu.Unlock()
			return a.answer(c)
		}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "shoal-e2e-approver", Version: "1"}, opts)
	return connectClient(t, k, c, k.env(), append([]string{"--socket", k.sock, "--no-autostart"}, args...)...)
}

// connectClient starts shoal-mcp with exactly args and environment env
// through the SDK client c.
func connectClient(t *testing.T, k *kernel, c *sdk.Client, env []string, args ...string) *session {
	t.Helper()
	n := &notes{changed: make(chan struct{}, 1)}
	cmd := exec.Command(bin("shoal-mcp"), args...)
	cmd.Env, cmd.Dir = env, k.dir
	cmd.SysProcAttr = diewithparent.Attr()
	s := &session{notes: n, stderr: &strings.Builder{}, mu: &sync.Mutex{}}
	cmd.Stderr = lockedWriter{s.mu, s.stderr}
	cs, err := c.Connect(ctx(t), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	s.cs = cs
	t.Cleanup(func() { cs.Close() })
	return s
}

func answer(action string) func(context.Context) (*sdk.ElicitResult, error) {
	return func(context.Context) (*sdk.ElicitResult, error) { return &sdk.ElicitResult{Action: action}, nil }
}

// heldData is the data of an approval that did not run.
type heldData struct {
	PlanRef  string `json:"plan_ref"`
	PlanURI  string `json:"plan_uri"`
	Approval string `json:"approval"`
	Ran      *bool  `json:"ran"`
}

func wantAbsent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("%s exists (%v): something ran", path, err)
	}
}

// TestE2EApprovalInTheCall: a write the worker's policy holds for
// approval asks the person at the client through elicitation (what would
// run, its effects, why, reversibility); on accept the lead's token
// approves it and it runs in the same call, writing the file; on decline
// nothing is written.
func TestE2EApprovalInTheCall(t *testing.T) {
	k, worker, lead, _ := approvalKernel(t)
	a := &asker{answer: answer("accept")}
	s := connectAsking(t, k, a, "--session", "work", "--token", worker, "--approver-token", lead)
	if !strings.Contains(s.errText(), "given as human:lead") {
		t.Errorf("stderr does not name the approver: %s", s.errText())
	}
	target := filepath.Join(k.dir, "accepted.txt")
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": `"hi".save("` + target + `")`})
	if res.IsError {
		t.Fatalf("accepted write: %s", text(res))
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "hi" {
		t.Fatalf("after accept the file = %q, %v", b, err)
	}
	q := a.asked()
	if len(q) != 1 {
		t.Fatalf("asked %d questions, want 1", len(q))
	}
	for _, want := range []string{"as agent:worker:", `"hi".save(`, "fs_write " + target, "Reversibility:", "plan:"} {
		if !strings.Contains(q[0], want) {
			t.Errorf("the question lacks %q:\n%s", want, q[0])
		}
	}
	// A pure evaluation needs no approval and asks nothing.
	res = s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "6 * 7"})
	if res.IsError || len(a.asked()) != 1 {
		t.Fatalf("pure evaluation = %s, questions %d", text(res), len(a.asked()))
	}

	a.answer = answer("decline")
	target = filepath.Join(k.dir, "declined.txt")
	res = s.call(t, ctx(t), "shoal_exec", map[string]any{"src": `"no".save("` + target + `")`})
	e := wantToolError(t, "declined write", res, -32011)
	var d heldData
	if err := json.Unmarshal(e.Data, &d); err != nil || d.Approval != "decline" || d.Ran == nil || *d.Ran || !strings.HasPrefix(d.PlanRef, "plan:") {
		t.Fatalf("declined: %s %s", e.Message, e.Data)
	}
	wantAbsent(t, target)
	// The declined plan is denied: applying it later runs nothing either.
	res = s.call(t, ctx(t), "shoal_apply", map[string]any{"plan_ref": d.PlanRef})
	if !res.IsError {
		t.Fatalf("applying the declined plan: %s", text(res))
	}
	wantAbsent(t, target)
}

// TestE2EApprovalQuestionIsBounded: a plan with ten times the message
// bound's worth of effects is asked about in at most MaxApprovalMessage
// bytes, the rest counted; dismissing it runs nothing.
func TestE2EApprovalQuestionIsBounded(t *testing.T) {
	k, worker, lead, _ := approvalKernel(t)
	a := &asker{answer: answer("cancel")}
	s := connectAsking(t, k, a, "--session", "work", "--token", worker, "--approver-token", lead)
	var src strings.Builder
	var paths []string
	name := strings.Repeat("n", 150)
	for i := 0; src.Len() < 10*mcp.MaxApprovalMessage; i++ {
		p := filepath.Join(k.dir, fmt.Sprintf("%s%04d", name, i))
		paths = append(paths, p)
		fmt.Fprintf(&src, "\"x\".save(%q)\n", p)
	}
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": src.String()})
	e := wantToolError(t, "dismissed write", res, -32011)
	if !strings.Contains(e.Message, "dismissed") {
		t.Errorf("message = %q", e.Message)
	}
	q := a.asked()
	if len(q) != 1 || len(q[0]) > mcp.MaxApprovalMessage || !strings.Contains(q[0], "more") || !strings.Contains(q[0], "Reversibility:") {
		t.Fatalf("questions %d; the question is %d bytes (bound %d):\n%.400s", len(q), len(q[0]), mcp.MaxApprovalMessage, q[0])
	}
	for _, p := range paths[:3] {
		wantAbsent(t, p)
	}
	// The facade serves on.
	if res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "1 + 1"}); res.IsError {
		t.Fatalf("after the bounded question: %s", text(res))
	}
}

// TestE2EApprovalWithoutElicitation: a client that did not declare
// elicitation, or a facade without an approver, gets APPROVAL_REQUIRED
// naming the stored plan and the next step; nothing runs.
func TestE2EApprovalWithoutElicitation(t *testing.T) {
	k, worker, lead, _ := approvalKernel(t)
	for _, c := range []struct {
		name string
		a    *asker
		args []string
		why  string
	}{
		{"no elicitation", nil, []string{"--approver-token", lead}, "did not declare elicitation"},
		{"no approver", &asker{answer: answer("accept")}, nil, "no approver"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := connectAsking(t, k, c.a, append([]string{"--session", "work", "--token", worker}, c.args...)...)
			target := filepath.Join(k.dir, strings.ReplaceAll(c.name, " ", "-"))
			res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": `"x".save("` + target + `")`})
			e := wantToolError(t, c.name, res, -32011)
			var d heldData
			var body struct {
				Next struct {
					Hint    string `json:"hint"`
					PlanRef string `json:"plan_ref"`
					Tool    string `json:"tool"`
				} `json:"next"`
			}
			structured(t, res, &body)
			if err := json.Unmarshal(e.Data, &d); err != nil || !strings.HasPrefix(d.PlanRef, "plan:") ||
				body.Next.Tool != "shoal_apply" || body.Next.PlanRef != d.PlanRef || !strings.Contains(body.Next.Hint, c.why) {
				t.Fatalf("%s: data %s, next %+v", c.name, e.Data, body.Next)
			}
			if c.a != nil && len(c.a.asked()) != 0 {
				t.Errorf("asked without an approver")
			}
			wantAbsent(t, target)
			// The plan is stored and pending: its owner can read it.
			if rc := read(t, s, d.PlanURI); !strings.Contains(rc.Text, `"pending"`) {
				t.Errorf("plan = %.300s", rc.Text)
			}
		})
	}
}

// TestE2EApprovalRefusedByPolicy: an approver token whose policy may not
// approve is refused by the kernel after the user accepted; nothing runs.
func TestE2EApprovalRefusedByPolicy(t *testing.T) {
	k, worker, _, peer := approvalKernel(t)
	a := &asker{answer: answer("accept")}
	s := connectAsking(t, k, a, "--session", "work", "--token", worker, "--approver-token", peer)
	target := filepath.Join(k.dir, "refused.txt")
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": `"x".save("` + target + `")`})
	e := wantToolError(t, "approval by a non-approver", res, -32010)
	var d heldData
	if err := json.Unmarshal(e.Data, &d); err != nil || d.Approval != "refused" {
		t.Fatalf("refused: %s %s", e.Message, e.Data)
	}
	if len(a.asked()) != 1 {
		t.Errorf("asked %d times", len(a.asked()))
	}
	wantAbsent(t, target)
}

// TestE2EApprovalTimeout: a question nobody answers within
// --approval-wait (here ten times shorter than the answer takes) ends the
// call saying so; nothing runs.
func TestE2EApprovalTimeout(t *testing.T) {
	k, worker, lead, _ := approvalKernel(t)
	a := &asker{answer: func(c context.Context) (*sdk.ElicitResult, error) {
		select {
		case <-c.Done():
		case <-time.After(3 * time.Second):
		}
		return &sdk.ElicitResult{Action: "accept"}, nil
	}}
	s := connectAsking(t, k, a, "--session", "work", "--token", worker, "--approver-token", lead, "--approval-wait", "300ms")
	target := filepath.Join(k.dir, "late.txt")
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": `"x".save("` + target + `")`})
	e := wantToolError(t, "unanswered approval", res, -32011)
	var d heldData
	if err := json.Unmarshal(e.Data, &d); err != nil || d.Approval != "timeout" || !strings.Contains(e.Message, "300ms") {
		t.Fatalf("timeout: %s %s", e.Message, e.Data)
	}
	time.Sleep(3 * time.Second) // the late accept reaches a question nobody waits for
	wantAbsent(t, target)
	if res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "2 + 2"}); res.IsError {
		t.Fatalf("after the timeout: %s", text(res))
	}
}
