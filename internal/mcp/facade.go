// Package mcp is shoal-mcp: the Model Context Protocol facade over a Shoal
// kernel. It serves MCP over stdio with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) and turns each tool call,
// resource read and subscription into kernel calls through the client
// package. Requests are served concurrently; a cancelled call cancels its
// kernel work (and so its process tree) through task.cancel.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	buildversion "github.com/shoalgo/shoal/internal/version"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// Version is the facade's version as it reports it in initialize: the
// build's one version string (internal/version).
var Version = buildversion.String()

// Facade serves one MCP client on top of one attached kernel client.
type Facade struct {
	c      *client.Client
	srv    *sdk.Server
	stderr io.Writer

	// path and attach are how a fresh connection reaches the same
	// session (shoal://session/cwd reads the cwd an attach reports).
	path   string
	attach client.AttachParams

	inflight chan struct{} // a token per tool call being served

	// direct are the handlers of directTools, as registered with the
	// SDK, for the stdio direct path (fastcall.go).
	direct map[string]sdk.ToolHandler

	approval approval // who approves in the call (elicit.go)

	mu   sync.Mutex
	subs map[string]*resourceSub // by kernel channel
}

// New builds the facade over c, which must already be attached to its
// session. Log lines go to stderr.
func New(c *client.Client, stderr io.Writer) (*Facade, error) {
	return newFacade(c, stderr, offeredVersions())
}

// newFacade is New offering the given protocol revisions, newest first
// (Streamable HTTP offers its own set, see httpVersions).
func newFacade(c *client.Client, stderr io.Writer, versions []string) (*Facade, error) {
	f := &Facade{c: c, stderr: stderr, subs: make(map[string]*resourceSub), inflight: make(chan struct{}, MaxInFlight), approval: approval{wait: ApprovalWait},
		direct: make(map[string]sdk.ToolHandler)}
	f.srv = sdk.NewServer(&sdk.Implementation{Name: "shoal-mcp", Title: "Shoal", Version: Version}, &sdk.ServerOptions{
		Instructions:     instructions,
		SubscribeHandler: f.subscribe,
		// Over stdio, the handshake-era revisions (up to 2025-11-25),
		// which deployed clients speak: resources/unsubscribe is then a
		// request the facade answers once no update for the URI can
		// follow, where 2026-07-28's subscriptions/listen ends by a
		// cancellation the client does not wait for. Over HTTP,
		// httpVersions.
		SupportedProtocolVersions: versions,
		UnsubscribeHandler:        f.unsubscribe,
		Capabilities: &sdk.ServerCapabilities{
			Tools:     &sdk.ToolCapabilities{},
			Resources: &sdk.ResourceCapabilities{Subscribe: true},
			// The tasks extension (tasks.go).
			Extensions: map[string]any{TasksExtension: map[string]any{}},
		},
	})
	if err := f.addTools(); err != nil {
		return nil, err
	}
	f.addResources()
	if err := f.addTasks(); err != nil {
		return nil, err
	}
	return f, nil
}

// offeredVersions are the revisions New offers (a variable for tests).
var offeredVersions = handshakeVersions

// handshakeVersions are the SDK's protocol revisions before 2026-07-28.
func handshakeVersions() []string {
	var vs []string
	for _, v := range sdk.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			vs = append(vs, v)
		}
	}
	return vs
}

// Server returns the SDK server (tests connect it to in-memory transports).
func (f *Facade) Server() *sdk.Server { return f.srv }

// Run serves the MCP client on t until it disconnects or ctx ends, then
// drops the facade's kernel subscriptions. Over the facade's stdio
// transport, plain calls take the direct path (fastcall.go), whose calls
// still running are waited for before it returns.
func (f *Facade) Run(ctx context.Context, t sdk.Transport) error {
	defer f.dropSubscriptions()
	if s, ok := t.(*stdio); ok && s.d == nil {
		s.d = newDirect(f)
		defer s.d.wait()
	}
	return f.srv.Run(ctx, t)
}

// handler is one tool's implementation: validated, defaulted arguments
// in, a result out.
type handler func(ctx context.Context, req *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, error)

func (f *Facade) addTools() error {
	impl := map[string]handler{
		"shoal_exec":        f.toolExec,
		"shoal_plan":        f.toolPlan,
		"shoal_apply":       f.toolApply,
		"shoal_get":         f.toolGet,
		"shoal_journal":     f.toolJournal,
		"shoal_cancel":      f.passThrough(proto.MethodTaskCancel),
		"shoal_cap_request": f.passThrough(proto.MethodCapRequest),
		"shoal_pty_open":    f.passThrough(proto.MethodPTYOpen),
		"shoal_pty_send":    f.passThrough(proto.MethodPTYSend),
		"shoal_pty_read":    f.passThrough(proto.MethodPTYRead),
		"shoal_pty_resize":  f.passThrough(proto.MethodPTYResize),
		"shoal_pty_close":   f.passThrough(proto.MethodPTYClose),
		"shoal_pty_list":    f.passThrough(proto.MethodPTYList),
	}
	for _, d := range tools {
		h, ok := impl[d.name]
		if !ok {
			return fmt.Errorf("mcp: tool %s has no implementation", d.name)
		}
		s, err := d.inputSchema()
		if err != nil {
			return err
		}
		resolved, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
		if err != nil {
			return fmt.Errorf("mcp: schema of %s: %w", d.name, err)
		}
		out, err := d.outputSchema()
		if err != nil {
			return err
		}
		th := f.toolHandler(resolved, h)
		f.srv.AddTool(&sdk.Tool{Name: d.name, Description: d.desc, InputSchema: s, OutputSchema: out,
			Annotations: annotations(toolEffects(d.name))}, th)
		if directTools[d.name] {
			f.direct[d.name] = th
		}
	}
	return nil
}

// passThrough is a tool whose arguments are the kernel method's params
// and whose result is the kernel's answer.
func (f *Facade) passThrough(method string) handler {
	return func(ctx context.Context, _ *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, error) {
		var raw json.RawMessage
		if err := f.c.Call(ctx, method, args, &raw); err != nil {
			return toolError(err)
		}
		return result(raw), nil
	}
}

// toolJournal runs journal.query. The kernel answers an array; a tool's
// structuredContent must be an object (the official TypeScript client
// rejects anything else), so the entries come as {entries, next_cursor}:
// next_cursor, the last entry's id, is what to pass as cursor for older
// entries (a page can end early at the kernel's page byte bound, so a page
// shorter than limit does not mean the end); null when there were none.
// Entries come without their parsed source ("ast", the bulk of an entry)
// unless the call asks with ast: true.
func (f *Facade) toolJournal(ctx context.Context, _ *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, error) {
	var params map[string]json.RawMessage
	if err := json.Unmarshal(args, &params); err != nil {
		return nil, err
	}
	withAST := string(params["ast"]) == "true"
	delete(params, "ast")
	var entries []json.RawMessage
	if err := f.c.Call(ctx, proto.MethodJournalQuery, params, &entries); err != nil {
		return toolError(err)
	}
	var next json.RawMessage
	if n := len(entries); n > 0 {
		var last struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(entries[n-1], &last) == nil {
			next = last.ID
		}
	}
	if entries == nil {
		entries = []json.RawMessage{}
	}
	if !withAST {
		for i, e := range entries {
			entries[i] = withoutMember(e, "ast")
		}
	}
	b, err := json.Marshal(struct {
		Entries    []json.RawMessage `json:"entries"`
		NextCursor json.RawMessage   `json:"next_cursor"`
	}{entries, nullIfEmpty(next)})
	if err != nil {
		return nil, err
	}
	return result(b), nil
}

// nullIfEmpty is raw, or JSON null when raw is empty.
func nullIfEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

func (f *Facade) toolPlan(ctx context.Context, _ *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, error) {
	var a struct {
		Src string `json:"src"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	var raw json.RawMessage
	p := client.ExecParams{Src: a.Src, Mode: client.ModePlan, Position: client.PositionVal}
	if err := f.c.Call(ctx, proto.MethodExec, p, &raw); err != nil {
		return toolError(err)
	}
	return result(raw), nil
}

// toolApply runs plan.apply. The kernel runs an apply as a foreground
// task (it has no timeout_ms to hand it over), so a cancelled request
// finds its task as the one foreground task of the session that was not
// there before the apply was sent, and cancels it; when that is not
// unambiguous (another client's exec started meanwhile) it cancels
// nothing rather than guess.
func (f *Facade) toolApply(ctx context.Context, req *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, error) {
	before, _ := f.foreground(ctx)
	// The apply goes on when ctx ends (its task is what gets cancelled),
	// and is given up CancelSettle later should the kernel not answer.
	actx, stop := detach(ctx)
	defer stop()
	type out struct {
		raw json.RawMessage
		err error
	}
	ch := make(chan out, 1)
	go func() {
		var raw json.RawMessage
		err := f.c.Call(actx, proto.MethodPlanApply, args, &raw)
		ch <- out{raw, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			return toolError(o.err)
		}
		return result(o.raw), nil
	case <-ctx.Done():
	}
	bg := context.WithoutCancel(ctx)
	for deadline := time.Now().Add(CancelSettle); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		select {
		case o := <-ch:
			if o.err != nil {
				return toolError(o.err)
			}
			return result(o.raw), nil
		default:
		}
		now, err := f.foreground(bg)
		if err != nil {
			break
		}
		var fresh []string
		for _, id := range now {
			if !slices.Contains(before, id) {
				fresh = append(fresh, id)
			}
		}
		if len(fresh) == 1 {
			return f.cancelTask(fresh[0])
		}
		if len(fresh) > 1 {
			break
		}
	}
	return toolError(ctx.Err())
}

// foreground lists the running foreground tasks of the session that are
// not language tasks.
func (f *Facade) foreground(ctx context.Context) ([]string, error) {
	list, err := f.c.TaskList(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range list.Tasks {
		if r.Foreground && !r.Language && r.State == "running" {
			ids = append(ids, r.Task)
		}
	}
	return ids, nil
}

func (f *Facade) toolGet(ctx context.Context, _ *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, error) {
	var raw json.RawMessage
	if err := f.c.Call(ctx, proto.MethodValueGet, args, &raw); err != nil {
		return toolError(err)
	}
	return result(raw), nil
}

// result wraps a kernel answer: the answer itself as structuredContent,
// readable text (the render when there is one, else the JSON), and a
// resource link when it names a transcript ref.
func result(raw json.RawMessage) *sdk.CallToolResult {
	head, uri, raw := readAnswer(raw)
	text := ""
	if head.Render != nil {
		text = *head.Render
	} else {
		text = prettyJSON(raw)
	}
	res := &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: capText(text, uri)}},
		StructuredContent: raw,
	}
	if uri != "" {
		res.Content = append(res.Content, &sdk.ResourceLink{URI: uri, Name: head.Ref, MIMEType: "application/json"})
	}
	return res
}

// toolError turns an error into a tool error (isError) whose
// structuredContent is {code, error, message, data?, next?} (errors.go):
// a kernel error as the kernel gave it, with its specific code and next
// step; anything else (a lost kernel connection) with code -32603.
func toolError(err error) (*sdk.CallToolResult, error) {
	var re *proto.RPCError
	if !errors.As(err, &re) {
		return plainErrorResult(err), nil
	}
	return errorResult(re, nil), nil
}

// refURI maps out:N to shoal://out/N and val:blake3:H to shoal://val/blake3:H.
func refURI(ref string) string {
	switch {
	case strings.HasPrefix(ref, "out:"):
		return "shoal://out/" + strings.TrimPrefix(ref, "out:")
	case strings.HasPrefix(ref, "val:"):
		return "shoal://val/" + strings.TrimPrefix(ref, "val:")
	}
	return ""
}

// withMember adds one member to a JSON object (raw is returned as it is
// when it is not an object).
func withMember(raw json.RawMessage, key, val string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return raw
	}
	m[key] = mustJSON(val)
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}

// withoutMember removes one member from a JSON object (raw is returned as
// it is when it is not an object).
func withoutMember(raw json.RawMessage, key string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return raw
	}
	delete(m, key)
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`null`)
	}
	return b
}

// prettyJSON indents raw for reading; raw as it is when it is not JSON.
func prettyJSON(raw json.RawMessage) string {
	var b strings.Builder
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if enc.Encode(v) != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// capText bounds text to MaxText bytes, keeping whole leading lines and
// saying how much was cut and where the whole value is.
func capText(text, uri string) string {
	if len(text) <= MaxText {
		return text
	}
	cut := text[:MaxText-256]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	} else {
		for len(cut) > 0 && !utf8.RuneStart(text[len(cut)]) {
			cut = cut[:len(cut)-1] // not inside a character
		}
	}
	rest := strings.Count(text[len(cut):], "\n")
	marker := fmt.Sprintf("\n…(%d more lines, %d more bytes", rest, len(text)-len(cut))
	if uri != "" {
		marker += ", fetch via " + uri
	}
	return cut + marker + ")"
}
