package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// A resource read is one kernel call: fixed resources below, templates
// for the parameterised ones. Kernel errors come back as request errors
// whose text starts "kernel error CODE:".

var fixedResources = []struct {
	uri, name, desc string
}{
	{"shoal://session/cwd", "cwd", "The session's current working directory (read again at each read, so it follows cd)."},
	{"shoal://session/env", "env", "The session's environment: every variable name, and the values its grants let it read."},
	{"shoal://session/reef", "reef", "The programs the session has resolved through PATH."},
	{"shoal://tasks", "tasks", "The session's tasks: background and timed-out execs, language tasks, running foreground execs."},
	{"shoal://plans", "plans", "The session's stored plans, oldest first."},
	{"shoal://pty", "pty", "The session's open PTYs (no screen contents)."},
	{"shoal://journal", "journal", "The newest journal entries visible to this session; subscribe to hear of each new one."},
}

var templates = []struct {
	tmpl, name, desc string
}{
	{"shoal://out/{n}{?path,slice,format,elide}", "transcript value", "Transcript value out:N. path selects (.rows[0].name), slice=a..b cuts, format is json, render or raw, elide=max_bytes:N,max_rows:N,max_items:N sets the inline budget."},
	{"shoal://val/{hash}", "stored value", "A content-addressed value (blake3:…) that a journal entry you may read names."},
	{"shoal://task/{id}", "task", "Task task:ID's record; subscribe to hear of each change."},
	{"shoal://plan/{ref}", "plan", "Stored plan plan:REF: source, effects, verdict, state."},
	{"shoal://pty/{id}", "pty screen", "PTY pty:ID's current screen; subscribe to hear of each change and of the program's exit."},
	{"shoal://events/{channel}{?since,limit}", "event channel", "Events of a channel (user.NAME, session.transcript, render, task.N, journal, approval) after since; subscribe to hear of each new one."},
	{"shoal://journal{?since,until,principal,session,head,ok,limit}", "journal query", "Journal entries matching the filters, newest first."},
}

func (f *Facade) addResources() {
	// The templates are advertised for clients to build URIs from, but
	// reads are routed here directly: the SDK matches a URI against a
	// template's strict RFC 6570 expansion, which refuses the ':' of a
	// blake3 hash or the brackets of a path a client left unencoded.
	f.srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if rr, ok := req.(*sdk.ReadResourceRequest); ok && method == "resources/read" && rr.Params != nil && strings.HasPrefix(rr.Params.URI, "shoal://") {
				select {
				case f.inflight <- struct{}{}:
					defer func() { <-f.inflight }()
				default:
					return nil, fmt.Errorf("shoal-mcp is serving %d calls already; retry once one has answered", MaxInFlight)
				}
				return f.read(ctx, rr)
			}
			res, err := next(ctx, method, req)
			if lr, ok := res.(*sdk.ListResourcesResult); ok && err == nil && method == "resources/list" && lr.NextCursor == "" {
				lr.Resources = append(lr.Resources, f.live(ctx)...)
			}
			return res, err
		}
	})
	for _, r := range fixedResources {
		f.srv.AddResource(&sdk.Resource{URI: r.uri, Name: r.name, Description: r.desc, MIMEType: "application/json"}, f.read)
	}
	for _, t := range templates {
		f.srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: t.tmpl, Name: t.name, Description: t.desc, MIMEType: "application/json"}, f.read)
	}
}

// read serves every resource: it maps the URI to a kernel call.
func (f *Facade) read(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	method, params, err := resourceCall(uri)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if method == "cwd" {
		raw, err = f.currentCWD(ctx)
	} else {
		err = f.c.Call(ctx, method, params, &raw)
	}
	if err != nil {
		if re, ok := asRPC(err); ok {
			return nil, fmt.Errorf("kernel error %d: %s", re.Code, re.Message)
		}
		return nil, err
	}
	return readResult(uri, raw), nil
}

func asRPC(err error) (*proto.RPCError, bool) {
	var re *proto.RPCError
	for e := err; e != nil; {
		if r, ok := e.(*proto.RPCError); ok {
			re = r
			break
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	return re, re != nil
}

// readResult is the read's contents: text for render and raw formats,
// else pretty JSON (bounded).
func readResult(uri string, raw json.RawMessage) *sdk.ReadResourceResult {
	var txt struct {
		Render *string `json:"render"`
		Raw    *string `json:"raw"`
	}
	_ = json.Unmarshal(raw, &txt)
	q := queryOf(uri)
	switch {
	case q.Get("format") == client.FormatRender && txt.Render != nil:
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: capText(*txt.Render, uri)}}}
	case q.Get("format") == client.FormatRaw && txt.Raw != nil:
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: capText(*txt.Raw, uri)}}}
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: capText(prettyJSON(raw), uri)}}}
}

func queryOf(uri string) url.Values {
	u, err := url.Parse(uri)
	if err != nil {
		return url.Values{}
	}
	return u.Query()
}

// resourceCall maps a shoal:// URI to a kernel method and its params
// ("cwd" is answered by a fresh attach, see currentCWD).
func resourceCall(uri string) (method string, params map[string]any, err error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "shoal" {
		return "", nil, sdk.ResourceNotFoundError(uri)
	}
	q := u.Query()
	seg := strings.Split(strings.TrimPrefix(u.Opaque+u.Host+u.Path, "/"), "/")
	bad := func(format string, a ...any) (string, map[string]any, error) {
		return "", nil, fmt.Errorf("%s: %s", uri, fmt.Sprintf(format, a...))
	}
	params = map[string]any{}
	switch {
	case len(seg) == 2 && seg[0] == "session":
		switch seg[1] {
		case "cwd":
			return "cwd", nil, nil
		case "env":
			return proto.MethodSessionEnv, params, nil
		case "reef":
			return proto.MethodSessionReef, params, nil
		}
	case len(seg) == 1 && seg[0] == "tasks":
		return proto.MethodTaskList, params, nil
	case len(seg) == 1 && seg[0] == "plans":
		return proto.MethodPlanList, params, nil
	case len(seg) == 1 && seg[0] == "pty":
		return proto.MethodPTYList, params, nil
	case len(seg) == 2 && seg[0] == "pty":
		params["pty_id"] = prefixed("pty:", seg[1])
		return proto.MethodPTYRead, params, nil
	case len(seg) == 2 && seg[0] == "out":
		n, err := strconv.ParseUint(seg[1], 10, 53)
		if err != nil {
			return bad("out/{n}: n must be a transcript number")
		}
		params["ref"] = "out:" + strconv.FormatUint(n, 10)
		if p := q.Get("path"); p != "" {
			params["path"] = p
		}
		if s := q.Get("slice"); s != "" {
			a, b, ok := strings.Cut(s, "..")
			x, err1 := strconv.ParseInt(a, 10, 64)
			y, err2 := strconv.ParseInt(b, 10, 64)
			if !ok || err1 != nil || err2 != nil {
				return bad("slice must be START..END")
			}
			params["slice"] = [2]int64{x, y}
		}
		if fm := q.Get("format"); fm != "" {
			params["format"] = fm
		}
		if e := q.Get("elide"); e != "" {
			el, err := parseElide(e)
			if err != nil {
				return bad("%v", err)
			}
			params["elide"] = el
		}
		return proto.MethodValueGet, params, nil
	case len(seg) == 2 && seg[0] == "val":
		params["hash"] = strings.TrimPrefix(seg[1], "val:")
		return proto.MethodBlobGet, params, nil
	case len(seg) == 2 && seg[0] == "task":
		params["task"] = prefixed("task:", seg[1])
		return proto.MethodTaskGet, params, nil
	case len(seg) == 2 && seg[0] == "plan":
		params["plan_ref"] = prefixed("plan:", seg[1])
		return proto.MethodPlanGet, params, nil
	case len(seg) == 2 && seg[0] == "events":
		params["channel"] = seg[1]
		for _, k := range []string{"since", "limit"} {
			if v := q.Get(k); v != "" {
				n, err := strconv.ParseUint(v, 10, 53)
				if err != nil {
					return bad("%s must be a non-negative integer", k)
				}
				params[k] = n
			}
		}
		return proto.MethodEventsRead, params, nil
	case len(seg) == 1 && seg[0] == "journal":
		for _, k := range []string{"since", "until", "limit"} {
			if v := q.Get(k); v != "" {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n < 0 {
					return bad("%s must be a non-negative integer", k)
				}
				params[k] = n
			}
		}
		for _, k := range []string{"principal", "session", "head"} {
			if v := q.Get(k); v != "" {
				params[k] = v
			}
		}
		if v := q.Get("ok"); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return bad("ok must be true or false")
			}
			params["ok"] = b
		}
		if _, ok := params["limit"]; !ok {
			params["limit"] = 20
		}
		return proto.MethodJournalQuery, params, nil
	}
	return "", nil, sdk.ResourceNotFoundError(uri)
}

func prefixed(prefix, s string) string {
	if strings.HasPrefix(s, prefix) {
		return s
	}
	return prefix + s
}

// parseElide reads elide=max_bytes:N,max_rows:N,max_items:N.
func parseElide(s string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, ":")
		if !ok {
			k, v, ok = strings.Cut(part, "=")
		}
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case !ok || err != nil || n < 1:
			return nil, fmt.Errorf("elide must be max_bytes:N,max_rows:N,max_items:N with N ≥ 1")
		case k != "max_bytes" && k != "max_rows" && k != "max_items":
			return nil, fmt.Errorf("elide: unknown budget %q", k)
		}
		out[k] = n
	}
	return out, nil
}

// channelOf is the kernel channel whose events update a subscribed
// resource, or "" for a resource that cannot be subscribed to.
func channelOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "shoal" {
		return ""
	}
	seg := strings.Split(strings.TrimPrefix(u.Host+u.Path, "/"), "/")
	switch {
	case len(seg) == 1 && seg[0] == "journal":
		return "journal"
	case len(seg) == 2 && seg[0] == "events" && seg[1] != "":
		return seg[1]
	case len(seg) == 2 && seg[0] == "task":
		return "task." + strings.TrimPrefix(seg[1], "task:")
	case len(seg) == 2 && seg[0] == "pty":
		return "pty." + strings.TrimPrefix(seg[1], "pty:")
	}
	return ""
}

// currentCWD reads the session's working directory as it is now: a
// fresh connection attached to the same session reports it.
func (f *Facade) currentCWD(ctx context.Context) (json.RawMessage, error) {
	if f.path == "" {
		return nil, fmt.Errorf("shoal://session/cwd: the facade does not know its socket")
	}
	c, err := client.Dial(ctx, f.path)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	att, err := c.Attach(ctx, f.attach)
	if err != nil {
		return nil, err
	}
	return mustJSON(map[string]any{"session": att.Session, "cwd": att.CWD}), nil
}

// live lists, after the fixed resources, what in the session is worth a
// look now: its running (or suspended) tasks, its plans that can still
// run, and its PTYs, as a snapshot (the kernel bounds how many there are).
// Finished tasks are left out, so that every exec does not add one: each
// stays readable by the shoal://task/{id} template, and shoal://tasks
// lists them all. A kind the kernel cannot list (PTYs on a kernel without
// them) is left out.
func (f *Facade) live(ctx context.Context) []*sdk.Resource {
	var out []*sdk.Resource
	if tasks, err := f.c.TaskList(ctx); err == nil {
		for _, t := range tasks.Tasks {
			if terminal(&t) {
				continue
			}
			id := strings.TrimPrefix(t.Task, "task:")
			out = append(out, &sdk.Resource{URI: "shoal://task/" + id, Name: t.Task, MIMEType: "application/json",
				Description: strings.TrimSpace(t.State + " " + t.Desc)})
		}
	}
	if plans, err := f.c.PlanList(ctx); err == nil {
		for _, p := range plans.Plans {
			if p.State == "denied" {
				continue
			}
			out = append(out, &sdk.Resource{URI: "shoal://plan/" + strings.TrimPrefix(p.PlanRef, "plan:"), Name: p.PlanRef,
				MIMEType: "application/json", Description: p.State + ": " + p.Src})
		}
	}
	if ptys, err := f.c.PTYList(ctx); err == nil {
		for _, p := range ptys.Ptys {
			out = append(out, &sdk.Resource{URI: "shoal://pty/" + strings.TrimPrefix(p.PtyID, "pty:"), Name: p.PtyID,
				MIMEType: "application/json", Description: p.Cmd})
		}
	}
	return out
}
