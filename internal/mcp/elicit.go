package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// Approval inside the call.
//
// A shoal_exec run that the kernel holds for approval (-32011) is stored
// as a plan. When the facade knows who sits at the client (an approver
// token, --approver-token) and the client declared elicitation, the
// call asks that person through elicitation/create: what would run, its
// effects, why it needs approval and whether it can be undone. On
// accept, a second kernel attachment authenticated with the approver
// token approves the plan (cap.request: the kernel's policy decides
// whether that principal may), and the plan runs in the same call as
// shoal_apply runs it. On decline, cancel or no answer within the wait,
// the call says so and nothing runs. Without an approver token or the
// capability, the error names the stored plan and the next step.

// approval is what the facade needs to ask for approvals in the call.
type approval struct {
	token string        // the approver's bearer token; empty: never ask
	wait  time.Duration // how long to wait for the answer
	agent string        // the facade's own principal, named in the question
}

// planAnswer is exec mode "plan"'s answer, the members the question uses.
type planAnswer struct {
	PlanRef       string         `json:"plan_ref"`
	Effects       []proto.Effect `json:"effects"`
	Reversibility string         `json:"reversibility"`
	Verdict       string         `json:"verdict"`
	Reasons       []string       `json:"reasons"`
	State         string         `json:"state"`
}

// approvalHeld reports whether err is the kernel holding a run for approval.
func approvalHeld(err error) (*proto.RPCError, bool) {
	var re *proto.RPCError
	if errors.As(err, &re) && re.Code == proto.CodeApprovalRequired {
		return re, true
	}
	return nil, false
}

// approveInCall handles an exec run the kernel held for approval (err,
// -32011): it stores the plan and either asks the person at the client
// and runs it, or answers the error with the plan and the next step. It
// returns false when err is something else, for the caller to answer.
func (f *Facade) approveInCall(ctx context.Context, req *sdk.CallToolRequest, a execArgs, err error) (*sdk.CallToolResult, bool) {
	held, ok := approvalHeld(err)
	if !ok || a.Mode == client.ModePlan {
		return nil, false
	}
	if ref, answer, ok := retried(req, a.Src); ok && f.approval.token != "" {
		// The second round of a multi round-trip call: the answer to
		// the question the first round asked about this plan.
		return f.answered(ctx, req, planAnswer{PlanRef: ref}, answer), true
	}
	var plan planAnswer
	p := client.ExecParams{Src: a.Src, Mode: client.ModePlan, Position: a.Position}
	if perr := f.c.Call(ctx, proto.MethodExec, p, &plan); perr != nil || plan.PlanRef == "" {
		return nil, false // the held error as it is
	}
	if plan.State != "pending" {
		// Judged otherwise a moment later (the policy changed): the
		// plan as stored says what to do.
		return withPlan(held, plan, &nextStep{PlanRef: plan.PlanRef,
			Hint: "The plan was judged " + plan.State + " when stored; read it with shoal://plan/" + strings.TrimPrefix(plan.PlanRef, "plan:") + "."}), true
	}
	if f.approval.token == "" || !canElicit(req) {
		why := "no approver is configured for this client (shoal-mcp --approver-token)"
		if f.approval.token != "" {
			why = "this client cannot ask its user (it did not declare elicitation)"
		}
		next := approvalNext(plan.PlanRef)
		next.Hint = why + ". " + next.Hint
		return withPlan(held, plan, next), true
	}
	question := &sdk.ElicitParams{
		Mode:            "form",
		Message:         approvalMessage(f.approval.agent, a.Src, plan),
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	}
	if multiRoundTrip(req) {
		// 2026-07-28 and later: a server sends no requests of its own
		// while serving one; the call answers the question as an input
		// request, and the client calls again with the answer and the
		// signed state naming the plan.
		return &sdk.CallToolResult{
			InputRequests: sdk.InputRequestMap{approvalInputKey: question},
			RequestState:  signState(plan.PlanRef, a.Src),
		}, true
	}
	ectx, cancel := context.WithTimeout(ctx, f.approval.wait)
	defer cancel()
	res, eerr := req.Session.Elicit(ectx, question)
	switch {
	case eerr != nil && ctx.Err() != nil:
		return refused(proto.CodeApprovalRequired, "the call was cancelled while asking for approval: nothing ran", plan, "cancelled"), true
	case eerr != nil && ectx.Err() != nil:
		return refused(proto.CodeApprovalRequired, fmt.Sprintf("no answer to the approval question within %v: nothing ran", f.approval.wait), plan, "timeout"), true
	case eerr != nil:
		return refused(proto.CodeApprovalRequired, "asking for approval failed ("+eerr.Error()+"): nothing ran", plan, "error"), true
	}
	return f.answered(ctx, req, plan, res), true
}

// answered acts on the person's answer: on accept, approves the plan as
// the approver and runs it; otherwise denies it, and nothing runs.
func (f *Facade) answered(ctx context.Context, req *sdk.CallToolRequest, plan planAnswer, res *sdk.ElicitResult) *sdk.CallToolResult {
	if res.Action != "accept" {
		f.decide(context.WithoutCancel(ctx), plan.PlanRef, true)
		return refused(proto.CodeApprovalRequired, "the user "+declined(res.Action)+" the approval: nothing ran", plan, res.Action)
	}
	cap, cerr := f.decide(ctx, plan.PlanRef, false)
	if cerr != nil {
		var re *proto.RPCError
		code := proto.CodeLeashDenied
		if errors.As(cerr, &re) {
			code = re.Code
		}
		return refused(code, "the approver may not approve this plan ("+cerr.Error()+"): nothing ran", plan, "refused")
	}
	if !cap.Approved {
		return refused(proto.CodeApprovalRequired, "the approval did not cover every effect (uncovered: "+strings.Join(cap.Uncovered, ", ")+"): nothing ran", plan, "partial")
	}
	out, _ := f.toolApply(ctx, req, mustJSON(map[string]string{"plan_ref": plan.PlanRef}))
	return out
}

// canElicit reports whether the calling client declared form elicitation.
func canElicit(req *sdk.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return false
	}
	e := ip.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil // both absent: form, as the spec reads it
}

// decide approves (or denies) a plan as the approver: a connection of
// its own, attached with the approver token, so the kernel judges the
// approver's principal, not the facade's.
func (f *Facade) decide(ctx context.Context, ref string, deny bool) (*proto.CapRequestResult, error) {
	ctx, cancel := context.WithTimeout(ctx, CancelSettle)
	defer cancel()
	c, err := client.Dial(ctx, f.path)
	if err != nil {
		return nil, fmt.Errorf("reach the kernel as the approver: %w", err)
	}
	defer c.Close()
	if _, err := c.Attach(ctx, client.AttachParams{Session: f.attach.Session, Token: f.approval.token, Client: &client.ClientInfo{Kind: "mcp-approver"}}); err != nil {
		return nil, fmt.Errorf("attach as the approver: %w", err)
	}
	return c.CapRequest(ctx, ref, nil, deny)
}

// setApprover checks --approver-token and --approval-wait at start, for
// stdio and HTTP alike, and says on stderr whose approvals the client's
// answers give; it returns the exit status to stop with, 0 to go on
// (also when no approver is set).
func setApprover(ctx context.Context, o *mainOptions, path string, stderr io.Writer) int {
	if o.approver == "" {
		return 0
	}
	who, err := checkApprover(ctx, path, o.session, o.approver)
	if err != nil {
		fmt.Fprintf(stderr, "shoal-mcp: the approver token does not attach: %v\n", err)
		return 1
	}
	if o.approvalWait <= 0 {
		fmt.Fprintf(stderr, "shoal-mcp: --approval-wait must be positive\n")
		return 2
	}
	fmt.Fprintf(stderr, "shoal-mcp: approvals asked at the client are given as %s\n", who)
	return 0
}

// checkApprover attaches once with the approver token, so that a bad
// token fails at start rather than at the first approval; it returns
// the approver's principal.
func checkApprover(ctx context.Context, path, session, token string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, CancelSettle)
	defer cancel()
	c, err := client.Dial(ctx, path)
	if err != nil {
		return "", err
	}
	defer c.Close()
	att, err := c.Attach(ctx, client.AttachParams{Session: session, Token: token, Client: &client.ClientInfo{Kind: "mcp-approver"}})
	if err != nil {
		return "", err
	}
	return att.Principal, nil
}

func declined(action string) string {
	if action == "cancel" {
		return "dismissed"
	}
	return "declined"
}

// withPlan is the held error as a tool error, its data extended with the
// stored plan, and next what to do about it.
func withPlan(held *proto.RPCError, plan planAnswer, next *nextStep) *sdk.CallToolResult {
	data := map[string]any{}
	if held.Data != nil {
		_ = json.Unmarshal(mustJSON(held.Data), &data)
	}
	data["plan_ref"] = plan.PlanRef
	data["plan_uri"] = "shoal://plan/" + strings.TrimPrefix(plan.PlanRef, "plan:")
	return errorResult(proto.NewError(held.Code, held.Message, data), next)
}

// refused is the answer of an approval that did not happen: nothing ran.
func refused(code int, msg string, plan planAnswer, outcome string) *sdk.CallToolResult {
	res, _ := toolError(proto.NewError(code, msg, map[string]any{
		"plan_ref": plan.PlanRef,
		"plan_uri": "shoal://plan/" + strings.TrimPrefix(plan.PlanRef, "plan:"),
		"approval": outcome,
		"ran":      false,
	}))
	return res
}

// approvalMessage is the question put to the person at the client: the
// source, each effect, why approval is needed and whether it can be
// undone, at most MaxApprovalMessage bytes: the source takes at most a
// quarter of it, the effects listed (at most MaxApprovalEffects, the
// rest counted) a quarter, the reasons an eighth, so that what can be
// undone and the plan's ref always fit.
func approvalMessage(agent, src string, plan planAnswer) string {
	var b strings.Builder
	if agent == "" {
		agent = "the agent's principal"
	}
	b.WriteString("Shoal asks to run, as " + cut(agent, 256) + ":\n\n")
	b.WriteString(indent(cut(src, MaxApprovalMessage/4)))
	fmt.Fprintf(&b, "\n\nEffects (%d):\n", len(plan.Effects))
	for i, e := range plan.Effects {
		if i == MaxApprovalEffects {
			fmt.Fprintf(&b, "  … and %d more (shoal://plan/%s lists them all)\n", len(plan.Effects)-i, strings.TrimPrefix(plan.PlanRef, "plan:"))
			break
		}
		b.WriteString("  - " + effectLine(e) + "\n")
	}
	if len(plan.Reasons) > 0 {
		b.WriteString("Why approval is needed: " + cut(strings.Join(plan.Reasons, "; "), MaxApprovalMessage/8) + "\n")
	}
	rev := plan.Reversibility
	if rev == "" {
		rev = "unknown"
	}
	b.WriteString("Reversibility: " + rev + "\n")
	b.WriteString("\nAccept to approve it and run it now; decline and nothing runs. (" + plan.PlanRef + ")")
	return cut(b.String(), MaxApprovalMessage)
}

func effectLine(e proto.Effect) string {
	s := e.Kind
	switch {
	case e.Path != "":
		s += " " + e.Path
	case e.Program != "":
		s += " " + e.Program
		if len(e.Argv) > 1 {
			s += " " + strings.Join(e.Argv[1:], " ")
		}
	case e.Name != "":
		s += " " + e.Name
	}
	if e.Dynamic {
		s += " (decided at run time)"
	}
	return cut(s, MaxApprovalMessage/(4*MaxApprovalEffects))
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }

// cut bounds s to n bytes at a character boundary, marking a cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n-len("…")]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
