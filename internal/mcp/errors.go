package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// A tool error's structuredContent is {code, error, message, data?,
// next?} (errorShape): code is the kernel's JSON-RPC code, error a
// specific code a model can act on, and next, where the kernel's answer
// says what would help, the hint and the tool call that does it.

// toolErrorBody is a tool error's structuredContent.
type toolErrorBody struct {
	Code    int       `json:"code"`
	Error   string    `json:"error"`
	Message string    `json:"message"`
	Data    any       `json:"data,omitempty"`
	Next    *nextStep `json:"next,omitempty"`
}

// nextStep is what to do about an error.
type nextStep struct {
	Hint      string         `json:"hint"`
	PlanRef   string         `json:"plan_ref,omitempty"`
	Tool      string         `json:"tool,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
	// Grants are the policy grants a refusal lacks, e.g. "fs.delete for
	// /home/u/x".
	Grants []string `json:"grants,omitempty"`
}

// missingGrant reads a policy reason "fs_delete /p: no fs.delete grant
// matches" as the grant it lacks, "fs.delete for /p".
var missingGrant = regexp.MustCompile(`^\S+ (.+): no (\S+) grant matches$`)

// errnoCodes name the OS failures a file system builtin reports in its
// message (as "name: reason", the reason being the errno's text): the
// language raises them all as `custom`, so the facade names them.
var errnoCodes = []struct {
	errno syscall.Errno
	code  string
}{
	{syscall.ENOENT, "not_found"},
	{syscall.EACCES, "permission_denied"},
	{syscall.EPERM, "not_permitted"},
	{syscall.EEXIST, "already_exists"},
	{syscall.EISDIR, "is_a_directory"},
	{syscall.ENOTDIR, "not_a_directory"},
	{syscall.ENOTEMPTY, "directory_not_empty"},
	{syscall.ENOSPC, "no_space"},
	{syscall.EROFS, "read_only_file_system"},
	{syscall.ELOOP, "symlink_loop"},
	{syscall.ENAMETOOLONG, "name_too_long"},
	{syscall.EBUSY, "busy"},
	{syscall.EXDEV, "cross_device"},
}

// customCode names a `custom` language error by its message: an OS
// failure by its errno's text at the end, and the few the file system
// builtins word themselves; anything else is "failed".
func customCode(msg string) string {
	for _, e := range errnoCodes {
		if strings.HasSuffix(msg, ": "+e.errno.Error()) {
			return e.code
		}
	}
	switch {
	case strings.HasSuffix(msg, ": already exists"):
		return "already_exists"
	case strings.HasSuffix(msg, ": parent directory does not exist"):
		return "parent_not_found"
	}
	return "failed"
}

// errorCode is the specific code of a kernel error: the language's code
// of a raised error (a `custom` one named by customCode), the code the
// data names (quota_exceeded, cancelled, …), else the contract's name of
// the JSON-RPC code in lower case (approval_required, unknown_plan, …).
func errorCode(re *proto.RPCError, data map[string]any) string {
	if c, ok := data["code"].(string); ok && c != "" {
		if c == "custom" {
			return customCode(re.Message)
		}
		return c
	}
	if n := proto.CodeName(re.Code); n != "" {
		return strings.ToLower(n)
	}
	return fmt.Sprintf("error_%d", -re.Code)
}

// dataMap is the error's data as a JSON object, or nil.
func dataMap(re *proto.RPCError) map[string]any {
	if re.Data == nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(mustJSON(re.Data), &m) != nil {
		return nil
	}
	return m
}

// nextFor is what the error's own answer says would help: its hint, what
// a policy refusal lacks, or, for a plan awaiting approval, the approval
// and the call that applies it.
func nextFor(re *proto.RPCError, data map[string]any) *nextStep {
	hint, _ := data["hint"].(string)
	switch re.Code {
	case proto.CodeApprovalRequired:
		if ref := planRefIn(re.Message); ref != "" {
			return approvalNext(ref)
		}
	case proto.CodeLeashDenied:
		if rs, ok := data["reasons"].([]any); ok && len(rs) > 0 {
			var grants []string
			for _, r := range rs {
				if s, ok := r.(string); ok {
					if m := missingGrant.FindStringSubmatch(s); m != nil {
						s = m[2] + " for " + m[1]
					}
					grants = append(grants, s)
				}
			}
			return &nextStep{Grants: grants, Hint: "The policy does not grant this principal: " + strings.Join(grants, "; ") +
				". The kernel's owner can add that to the principal's policy; otherwise do only what the grants cover."}
		}
	case proto.CodeUnknownPlan:
		return &nextStep{Hint: "Plans run once and expire: make a new one with shoal_plan.", Tool: "shoal_plan"}
	case proto.CodeUnknownRef:
		if hint == "" {
			hint = "Refs are per session: use a ref this session's shoal_exec answered (out:N)."
		}
	}
	if hint == "" {
		return nil
	}
	return &nextStep{Hint: hint}
}

// approvalNext is the next step of a plan that waits for approval.
func approvalNext(ref string) *nextStep {
	return &nextStep{
		Hint: "Plan " + ref + " waits for an approver: the kernel's owner, or a principal whose policy lets it approve, " +
			"approves it (shoal_cap_request {plan_ref} from their own session, or cap.request on the kernel socket); " +
			"then run it with this call.",
		PlanRef: ref, Tool: "shoal_apply", Arguments: map[string]any{"plan_ref": ref},
	}
}

// planRefIn finds the quoted plan ref in a kernel message
// ("… plan \"plan:3f2a\" awaits …").
func planRefIn(msg string) string {
	i := strings.Index(msg, `"plan:`)
	if i < 0 {
		return ""
	}
	rest := msg[i+1:]
	if j := strings.IndexByte(rest, '"'); j > 0 {
		return rest[:j]
	}
	return ""
}

// errorResult is the tool error of a kernel error, with next (when not
// nil) overriding what the error itself suggests.
func errorResult(re *proto.RPCError, next *nextStep) *sdk.CallToolResult {
	data := dataMap(re)
	body := toolErrorBody{Code: re.Code, Error: errorCode(re, data), Message: re.Message, Data: re.Data, Next: next}
	if body.Next == nil {
		body.Next = nextFor(re, data)
	}
	text := fmt.Sprintf("error %s (kernel error %d): %s", body.Error, re.Code, re.Message)
	if body.Next != nil {
		text += "\nnext: " + body.Next.Hint
		if body.Next.Arguments != nil {
			text += fmt.Sprintf(" (%s %s)", body.Next.Tool, mustJSON(body.Next.Arguments))
		}
	}
	if data != nil {
		if h, _ := data["hint"].(string); h == "" || (body.Next != nil && h == body.Next.Hint) {
			delete(data, "hint") // null, or said above
		}
		text += "\n" + prettyJSON(mustJSON(data))
	} else if re.Data != nil {
		text += "\n" + prettyJSON(mustJSON(re.Data))
	}
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: capText(text, "")}},
		StructuredContent: mustJSON(body),
		IsError:           true,
	}
}

// plainErrorResult is the tool error of an error that is not the
// kernel's: a lost kernel connection (kernel_unreachable), a call given up
// (cancelled), an answer the client could not read, anything else
// (internal_error).
func plainErrorResult(err error) *sdk.CallToolResult {
	name := "internal_error"
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		name = "cancelled"
	case errors.Is(err, client.ErrClosed) || errors.Is(err, client.ErrDetached) || errors.Is(err, client.ErrClientClosed):
		name = "kernel_unreachable"
	case errors.Is(err, client.ErrMalformedFrame) || errors.Is(err, client.ErrFrameTooDeep):
		name = "bad_kernel_answer"
	}
	return codedError(proto.CodeInternalError, name, err)
}

// codedError is a tool error the facade itself answers: err's text, and
// structuredContent {code, error, message}.
func codedError(code int, name string, err error) *sdk.CallToolResult {
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: capText(err.Error(), "")}},
		StructuredContent: mustJSON(toolErrorBody{Code: code, Error: name, Message: err.Error()}),
		IsError:           true,
	}
}

// approvalRequired answers a shoal_exec the policy holds for approval
// (-32011): the facade stores the source as a plan (exec mode plan), so
// that the error names the plan an approver approves and the shoal_apply
// call that then runs it. This is the one place where an exec that needs
// approval becomes a tool error.
func (f *Facade) approvalRequired(ctx context.Context, a execArgs, re *proto.RPCError) (*sdk.CallToolResult, error) {
	var plan proto.PlanAnswer
	p := proto.ExecParams{Src: a.Src, Mode: client.ModePlan, Position: a.Position}
	if err := f.c.Call(ctx, proto.MethodExec, p, &plan); err != nil || plan.PlanRef == "" {
		return errorResult(re, nil), nil
	}
	return errorResult(re, approvalNext(plan.PlanRef)), nil
}
