package kernel_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/kernel"
	"github.com/shoalgo/shoal/proto"
)

// clientCalls names, for each method of proto's method table, the typed
// call of the client package that calls it.
var clientCalls = map[string]string{
	proto.MethodKernelInfo: "KernelInfo", proto.MethodSessionAttach: "Attach",
	proto.MethodSessionEnv: "SessionEnv", proto.MethodSessionReef: "SessionReef",
	proto.MethodParse: "Parse", proto.MethodComplete: "Complete", proto.MethodExplain: "Explain",
	proto.MethodExec: "Exec", proto.MethodValueGet: "ValueGet", proto.MethodBlobGet: "BlobGet",
	proto.MethodTaskList: "TaskList", proto.MethodTaskGet: "TaskGet", proto.MethodTaskAwait: "TaskAwait",
	proto.MethodTaskCancel: "TaskCancel", proto.MethodTaskSuspend: "TaskSuspend", proto.MethodTaskResume: "TaskResume", proto.MethodTaskOutput: "TaskOutput",
	proto.MethodPlanGet: "PlanGet", proto.MethodPlanList: "PlanList", proto.MethodPlanApply: "PlanApply",
	proto.MethodCapRequest: "CapRequest", proto.MethodJournalQuery: "JournalQuery",
	proto.MethodPTYOpen: "PTYOpen", proto.MethodPTYSend: "PTYSend", proto.MethodPTYRead: "PTYRead",
	proto.MethodPTYResize: "PTYResize", proto.MethodPTYClose: "PTYClose", proto.MethodPTYList: "PTYList",
	proto.MethodEventsRead: "EventsRead", proto.MethodEventsPublish: "EventsPublish",
	proto.MethodEventsSubscribe: "Subscribe", proto.MethodEventsUnsubscribe: "Unsubscribe",
}

// TestClientHasATypedCallPerMethod: every method of the table has a typed
// call on *client.Client, and the table names no other.
func TestClientHasATypedCallPerMethod(t *testing.T) {
	ct := reflect.TypeFor[*client.Client]()
	table := proto.Methods()
	for _, m := range table {
		name, ok := clientCalls[m.Name]
		if !ok {
			t.Errorf("%s has no typed call in this test's list", m.Name)
			continue
		}
		if _, ok := ct.MethodByName(name); !ok {
			t.Errorf("%s: client.Client has no method %s", m.Name, name)
		}
	}
	if len(clientCalls) != len(table) {
		t.Errorf("%d typed calls listed for %d methods", len(clientCalls), len(table))
	}
}

// TestE2EClientTypedCalls drives every typed call of the client package
// against a real kernel (with a journal), checking each answer decodes
// into its proto type with what the call asked for.
func TestE2EClientTypedCalls(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	k := serveConfigE2E(t, sock, dir, store, kernel.Config{Version: "e2e", TokenStore: store, Dir: dir,
		Env: []string{"HOME=" + filepath.Dir(dir), "PATH=/usr/bin:/bin"}, StateDir: filepath.Join(filepath.Dir(dir), "state")})
	ctx := testCtx(t)
	c := k.dial(t)

	// Before attach: kernel.info, parse and complete.
	info, err := c.KernelInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range proto.Methods() {
		names = append(names, m.Name)
		if !info.Implements(m.Name) {
			t.Errorf("kernel.info: %s not implemented", m.Name)
		}
	}
	if len(info.Methods) != len(names) || !slices.Equal(info.PreAttach, proto.PreAttachMethods()) {
		t.Errorf("kernel.info methods %v, pre_attach %v; table %v", info.Methods, info.PreAttach, names)
	}
	parsed, err := c.Parse(ctx, "1 + 2")
	if err != nil || parsed.ASTVersion != 2 || len(parsed.AST) == 0 {
		t.Fatalf("parse = %+v, %v", parsed, err)
	}
	comp, err := c.Complete(ctx, "(1..3).ma", -1)
	if err != nil || !slices.ContainsFunc(comp.Candidates, func(k proto.Candidate) bool { return k.Label == "map" }) {
		t.Fatalf("complete = %+v, %v", comp, err)
	}
	if comp, err = c.Complete(ctx, "(1..3).ma", 0); err != nil || slices.ContainsFunc(comp.Candidates, func(k proto.Candidate) bool { return k.Label == "map" }) {
		t.Errorf("complete at 0 = %+v, %v", comp, err)
	}
	if _, err := c.SessionEnv(ctx); !isCode(err, proto.CodeNotAttached) {
		t.Errorf("session.env before attach = %v", err)
	}

	if _, err := c.Attach(ctx, client.AttachParams{Session: "calls"}); err != nil {
		t.Fatal(err)
	}
	env, err := c.SessionEnv(ctx)
	if err != nil || !slices.Contains(env.Names, "PATH") || !env.Granted || env.Env["PATH"] != "/usr/bin:/bin" {
		t.Errorf("session.env = %+v, %v", env, err)
	}
	reef, err := c.SessionReef(ctx)
	if err != nil || reef.ActiveScope == "" {
		t.Errorf("session.reef = %+v, %v", reef, err)
	}
	ex, err := c.Explain(ctx, "mkdir ./made")
	if err != nil || !strings.HasPrefix(ex.Fingerprint, "fp:") || ex.PlanRef != ex.Fingerprint ||
		!slices.ContainsFunc(ex.Effects, func(e proto.Effect) bool { return e.Kind == "fs_write" }) {
		t.Errorf("explain = %+v, %v", ex, err)
	}
	exAST, err := c.ExplainAST(ctx, parsed.AST)
	if err != nil || len(exAST.Effects) != 0 || !strings.HasPrefix(exAST.Fingerprint, "fp:") {
		t.Errorf("explain ast = %+v, %v", exAST, err)
	}

	// exec, value.get, journal.query, blob.get.
	res, err := c.Exec(ctx, client.ExecParams{Src: `"typed"`})
	if err != nil || res.Ref == "" || res.Render != "typed" {
		t.Fatalf("exec = %+v, %v", res, err)
	}
	raw, err := c.ValueGet(ctx, client.ValueGetParams{Ref: res.Ref, Format: client.FormatRaw})
	if err != nil || raw.Raw == nil || *raw.Raw != "typed" || raw.Total != 5 {
		t.Errorf("value.get raw = %+v, %v", raw, err)
	}
	entries, _, err := c.JournalQuery(ctx, client.JournalQueryParams{Limit: 1})
	if err != nil || len(entries) != 1 || entries[0].Src != `"typed"` || len(entries[0].Outputs) == 0 {
		t.Fatalf("journal.query = %+v, %v", entries, err)
	}
	out := entries[0].Outputs[0]
	blob, err := c.BlobGet(ctx, out.Hash, 0, 0)
	if err != nil || blob.Hash != out.Hash || blob.Len != out.Len || !blob.EOF || len(blob.Value) == 0 {
		t.Errorf("blob.get = %+v, %v", blob, err)
	}
	part, err := c.BlobGet(ctx, out.Hash, 1, 2)
	if err != nil || part.Offset != 1 || !strings.Contains(string(part.Value), `"$":"bytes"`) {
		t.Errorf("blob.get range = %+v, %v", part, err)
	}

	// Tasks.
	run, err := c.Exec(ctx, client.ExecParams{Src: "sh { sleep 30 }", Async: true})
	if err != nil || !run.IsTask() {
		t.Fatalf("async exec = %+v, %v", run, err)
	}
	list, err := c.TaskList(ctx)
	if err != nil || !slices.ContainsFunc(list.Tasks, func(r proto.TaskRecord) bool { return r.Task == run.Task }) {
		t.Errorf("task.list = %+v, %v", list, err)
	}
	rec, err := c.TaskGet(ctx, run.Task)
	if err != nil || rec.Task != run.Task || rec.State != "running" {
		t.Errorf("task.get = %+v, %v", rec, err)
	}
	if rec, err = c.TaskAwait(ctx, run.Task, time.Millisecond); err != nil || !rec.TimedOut || rec.State != "running" {
		t.Errorf("task.await with a timeout = %+v, %v", rec, err)
	}
	// The task may not have started its work yet; the kernel refuses
	// suspension until it has.
	for range 500 {
		rec, err = c.TaskSuspend(ctx, run.Task)
		if !isCode(err, proto.CodeTaskControlUnavailable) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil || !rec.Suspended {
		t.Errorf("task.suspend = %+v, %v", rec, err)
	}
	if rec, err = c.TaskResume(ctx, run.Task); err != nil || rec.Suspended {
		t.Errorf("task.resume = %+v, %v", rec, err)
	}
	if rec, err = c.TaskCancel(ctx, run.Task); err != nil || rec.Task != run.Task {
		t.Errorf("task.cancel = %+v, %v", rec, err)
	}
	if rec, err = c.TaskAwait(ctx, run.Task, 0); err != nil || rec.State != "cancelled" || rec.FinishedNs == nil {
		t.Errorf("task.await = %+v, %v", rec, err)
	}
	if _, err := c.TaskGet(ctx, "task:999999"); !isCode(err, proto.CodeUnknownTask) {
		t.Errorf("task.get of an unknown task = %v", err)
	}
	printed, err := c.Exec(ctx, client.ExecParams{Src: "sh { printf 'out\\n' }", Async: true})
	if err != nil || !printed.IsTask() {
		t.Fatalf("async exec = %+v, %v", printed, err)
	}
	if _, err := c.TaskAwait(ctx, printed.Task, 0); err != nil {
		t.Fatal(err)
	}
	if ch, err := c.TaskOutput(ctx, printed.Task, 1, 0); err != nil || ch.Text == nil || *ch.Text != "ut\n" || ch.Offset != 1 || ch.Next != 4 || !ch.EOF {
		t.Errorf("task.output = %+v, %v", ch, err)
	}

	// Plans.
	planned, err := c.Exec(ctx, client.ExecParams{Src: "mkdir ./made", Mode: client.ModePlan})
	if err != nil || !planned.IsPlan() {
		t.Fatalf("exec plan = %+v, %v", planned, err)
	}
	var got0 proto.PlanAnswer // the plan exec answered, in its own shape
	if err := json.Unmarshal(mustMarshal(t, planned), &got0); err != nil || len(got0.Effects) == 0 {
		t.Fatalf("plan answer effects = %+v, %v", got0, err)
	}
	plans, err := c.PlanList(ctx)
	if err != nil || len(plans.Plans) != 1 || plans.Plans[0].PlanRef != planned.PlanRef || plans.Plans[0].Effects != len(got0.Effects) {
		t.Errorf("plan.list = %+v, %v", plans, err)
	}
	got, err := c.PlanGet(ctx, planned.PlanRef)
	if err != nil || got.Src != "mkdir ./made" || !reflect.DeepEqual(got.Effects, got0.Effects) ||
		!slices.ContainsFunc(got.Effects, func(e proto.Effect) bool { return e.Kind == "fs_write" && e.Path == filepath.Join(dir, "made") }) {
		t.Errorf("plan.get = %+v, %v", got, err)
	}
	decided, err := c.CapRequest(ctx, planned.PlanRef, []string{"fs_write"}, false)
	switch {
	case err == nil && decided.PlanRef != planned.PlanRef:
		t.Errorf("cap.request = %+v", decided)
	case err != nil && !isCode(err, proto.CodeLeashDenied):
		t.Errorf("cap.request: %v", err)
	}
	applied, err := c.PlanApply(ctx, planned.PlanRef)
	if err != nil || applied.Ref == "" {
		t.Fatalf("plan.apply = %+v, %v", applied, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "made")); err != nil || !fi.IsDir() {
		t.Errorf("plan.apply made nothing: %v", err)
	}
	if got, err := c.PlanGet(ctx, planned.PlanRef); err != nil || got.State != "applied" || got.PlanRef != planned.PlanRef {
		t.Errorf("plan.get of an applied plan = %+v, %v", got, err)
	}
	if _, err := c.PlanApply(ctx, planned.PlanRef); !isCode(err, proto.CodeUnknownPlan) {
		t.Errorf("a second plan.apply = %v", err)
	} else if st, _ := client.PlanGoneState(err); st != "applied" {
		t.Errorf("a second plan.apply says state %q", st)
	}

	// PTYs.
	cmd := "cat"
	opened, err := c.PTYOpen(ctx, proto.PTYOpenParams{Cmd: &cmd})
	if err != nil || opened.PtyID == "" || opened.Cmd != "cat" || !opened.Alive {
		t.Fatalf("pty.open = %+v, %v", opened, err)
	}
	ptys, err := c.PTYList(ctx)
	if err != nil || len(ptys.Ptys) != 1 || ptys.Ptys[0].PtyID != opened.PtyID {
		t.Errorf("pty.list = %+v, %v", ptys, err)
	}
	sent, err := c.PTYSend(ctx, opened.PtyID, "typed-pty\n")
	if err != nil || sent.Written != len("typed-pty\n") {
		t.Errorf("pty.send = %+v, %v", sent, err)
	}
	wait := int64(500)
	var screen *proto.PTYScreen
	for range 100 {
		screen, err = c.PTYRead(ctx, proto.PTYReadParams{PTYSelector: proto.PTYSelector{PtyID: &opened.PtyID}, WaitMS: &wait, UntilChange: true})
		if err != nil || slices.ContainsFunc(screen.Screen, func(l string) bool { return strings.Contains(l, "typed-pty") }) {
			break
		}
	}
	if err != nil || screen.PtyID != opened.PtyID || !slices.ContainsFunc(screen.Screen, func(l string) bool { return strings.Contains(l, "typed-pty") }) {
		t.Errorf("pty.read = %+v, %v", screen, err)
	}
	resized, err := c.PTYResize(ctx, opened.PtyID, 100, 30)
	if err != nil || resized.Cols != 100 || resized.Rows != 30 {
		t.Errorf("pty.resize = %+v, %v", resized, err)
	}
	closed, err := c.PTYClose(ctx, opened.PtyID)
	if err != nil || closed.PtyID != opened.PtyID || closed.Exit == nil || (closed.Exit.Status == nil && closed.Exit.Signal == nil) {
		t.Errorf("pty.close = %+v, %v", closed, err)
	}

	// Events.
	pub, err := c.EventsPublish(ctx, "user.typed", map[string]int{"n": 1})
	if err != nil || pub.Channel != "user.typed" || pub.Seq == 0 {
		t.Fatalf("events.publish = %+v, %v", pub, err)
	}
	evs, err := c.EventsRead(ctx, "user.typed", 0, 0)
	if err != nil || len(evs) != 1 || evs[0].Seq != pub.Seq || string(evs[0].Payload) != `{"n":1}` {
		t.Errorf("events.read = %+v, %v", evs, err)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// isCode reports whether err is a kernel error with code.
func isCode(err error, code int) bool {
	var re *proto.RPCError
	return errors.As(err, &re) && re.Code == code
}
