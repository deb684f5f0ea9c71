package mcp_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/internal/mcp"
)

// taskReq and taskRes are the tasks extension's params and Task as a
// client sends and reads them.
type taskReq struct {
	sdk.ParamsBase
	TaskID string `json:"taskId"`
}

type taskRes struct {
	sdk.ResultBase
	ResultType    string          `json:"resultType"`
	TaskID        string          `json:"taskId"`
	Status        string          `json:"status"`
	StatusMessage string          `json:"statusMessage"`
	CreatedAt     string          `json:"createdAt"`
	TTLMs         json.RawMessage `json:"ttlMs"`
	Result        json.RawMessage `json:"result"`
}

// tasksClient is an SDK client that may send the extension's methods,
// declaring the extension when declare is set.
func tasksClient(t *testing.T, declare bool) *sdk.Client {
	t.Helper()
	caps := &sdk.ClientCapabilities{}
	if declare {
		caps.AddExtension(mcp.TasksExtension, map[string]any{})
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "shoal-e2e-tasks", Version: "1"}, &sdk.ClientOptions{Capabilities: caps})
	for _, m := range []string{"tasks/get", "tasks/cancel"} {
		if err := sdk.AddSendingCustomMethod[*taskReq, *taskRes](c, m); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func taskCall(t *testing.T, s *session, method, id string) (*taskRes, error) {
	t.Helper()
	return sdk.CallCustomMethod[*taskReq, *taskRes](ctx(t), s.cs, method, &taskReq{TaskID: id})
}

// taskOfCall is the task id a tools/call answered with, from the
// CreateTaskResult's related-task _meta.
func taskOfCall(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	rel, _ := res.Meta["io.modelcontextprotocol/related-task"].(map[string]any)
	id, _ := rel["taskId"].(string)
	if !strings.HasPrefix(id, "task:") {
		t.Fatalf("the call did not answer a task: meta %v, %s", res.Meta, text(res))
	}
	return id
}

// pollTask polls tasks/get until the task's status is want.
func pollTask(t *testing.T, s *session, id, want string) *taskRes {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r, err := taskCall(t, s, "tasks/get", id)
		if err != nil {
			t.Fatalf("tasks/get %s: %v", id, err)
		}
		if r.ResultType != "complete" || r.TaskID != id || r.CreatedAt == "" || string(r.TTLMs) != "null" {
			t.Fatalf("tasks/get %s = %+v", id, r)
		}
		if r.Status == want {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s is %s (%s), never %s", id, r.Status, r.StatusMessage, want)
		}
	}
}

// TestE2ETasksExtension: a client that declares io.modelcontextprotocol/tasks
// gets a task for a long shoal_exec, polls it with tasks/get to its
// result, and ends another with tasks/cancel, which ends its process
// tree (a background grandchild included); a quick call still answers
// its value; unknown tasks are -32602.
func TestE2ETasksExtension(t *testing.T) {
	k := startKernel(t)
	s := connectClient(t, k, tasksClient(t, true), k.env(), "--socket", k.sock, "--no-autostart")
	if caps := s.cs.InitializeResult().Capabilities; caps.Extensions[mcp.TasksExtension] == nil {
		t.Errorf("the server does not declare the extension: %+v", caps.Extensions)
	}
	// Quick: the value, as without the extension.
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "40 + 2"})
	var r execResult
	structured(t, res, &r)
	if res.IsError || r.Render != "42" {
		t.Fatalf("a quick call = %s", text(res))
	}
	// Long: a task, polled to its result.
	res = s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "^sh -c 'sleep 0.8; echo late'"})
	id := taskOfCall(t, res)
	done := pollTask(t, s, id, "completed")
	var result struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent struct {
			Task string `json:"task"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(done.Result, &result); err != nil || result.IsError || len(result.Content) == 0 ||
		!strings.Contains(result.Content[0].Text, "late") || result.StructuredContent.Task != id {
		t.Fatalf("the completed task's result = %s (%v)", done.Result, err)
	}
	// Long and cancelled: the process tree ends.
	marker := "303.25" + time.Now().Format("0405")
	res = s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "^sh -c 'sleep " + marker + " & sleep " + marker + "1; wait'"})
	id = taskOfCall(t, res)
	for deadline := time.Now().Add(20 * time.Second); len(procsWith(t, marker)) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the task's processes never appeared")
		}
	}
	if w := pollTask(t, s, id, "working"); !strings.Contains(w.StatusMessage, id) {
		t.Errorf("working task's message = %q", w.StatusMessage)
	}
	if _, err := taskCall(t, s, "tasks/cancel", id); err != nil {
		t.Fatalf("tasks/cancel: %v", err)
	}
	pollTask(t, s, id, "cancelled")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left := procsWith(t, marker)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the cancelled task remain: %v", left)
		}
	}
	for _, bad := range []string{"task:99999", "out:1", "nonsense"} {
		_, err := taskCall(t, s, "tasks/get", bad)
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("tasks/get %s: %v, want -32602", bad, err)
		}
	}
}

// TestE2ETasksNeedTheExtension: a client that did not declare the
// extension has its long call held open as before, and its tasks/get is
// -32021 naming the capability.
func TestE2ETasksNeedTheExtension(t *testing.T) {
	k := startKernel(t)
	s := connectClient(t, k, tasksClient(t, false), k.env(), "--socket", k.sock, "--no-autostart")
	res := s.call(t, ctx(t), "shoal_exec", map[string]any{"src": "^sh -c 'sleep 0.6; echo held'"})
	var r execResult
	structured(t, res, &r)
	if res.IsError || !strings.Contains(r.Render, "held") || r.Task == "" {
		t.Fatalf("a long call without the extension = %s", text(res))
	}
	_, err := taskCall(t, s, "tasks/get", r.Task)
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != -32021 || !strings.Contains(string(we.Data), mcp.TasksExtension) {
		t.Fatalf("tasks/get without the extension: %v", err)
	}
}
