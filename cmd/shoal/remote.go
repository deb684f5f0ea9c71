package main

// `shoal --kernel SOCKET`: the REPL, a script, -c or stdin run in a
// session of a running shoal-kernel instead of a private interpreter, so
// a person can watch and share the session an agent uses. The language
// and the display are the same: the kernel answers a wire value, decoded
// here and shown with value.DisplayWidth; errors come back typed and are
// rendered with internal/diag against the source; statement output is
// printed as it arrives, from the output events of the exec's task (each
// exec is sent watched, remote_live.go), and what those did not carry is
// read from the session's render channel after the exec (the kernel keeps
// at most 64 KiB of it per exec). Ctrl-C closes the connection, which
// cancels the running exec on the kernel, and the next statement dials
// again.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/diag"
	"github.com/shoalgo/shoal/internal/repl"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// renderChannel is the session channel carrying each exec's output.
const renderChannel = "render"

// remoteElide asks the kernel for values whole up to the most one answer
// carries (64 KiB of JSON, any number of rows or items), so the terminal
// displays them as standalone does; a larger one is shown as the kernel
// rendered it (decodeResult).
var remoteElide = client.Elide{MaxBytes: 64 << 10, MaxRows: 1 << 30, MaxItems: 1 << 30}

// remoteTarget names the kernel session to attach to.
type remoteTarget struct {
	Socket  string // the kernel's socket
	Session string // the session's name ("" is "default")
	Token   string // a bearer token; "" attaches as the local owner
	TTY     bool   // the client is a person at a terminal
	// KeepCwd attaches without moving the session to this process's
	// directory (--keep-cwd); by default the first attach moves it here,
	// so commands run where the prompt says.
	KeepCwd bool
	// Style is the display style asked of the kernel for statement output
	// and used for the final value: the standalone shoal's (value.Human
	// for -c and scripts, the user's render.* settings in the REPL).
	Style value.Style
}

// remoteSession is a repl.Session in a kernel session. It is used by one
// goroutine at a time (the loop, or execute).
type remoteSession struct {
	target remoteTarget
	stdout io.Writer
	stderr io.Writer
	c      *client.Client
	since  uint64 // the render channel's newest seq seen (0: none yet)
	exit   *int   // an exit the kernel reported
	// entered is set once an attach has carried this process's directory
	// (or KeepCwd said not to): a reconnect does not move the session back.
	entered bool
	// cwd is the session's directory as the kernel last reported it.
	cwd string
	// onCwd, when set, is told the session's directory after each attach
	// and exec (the REPL keeps its prompt and completion there).
	onCwd func(dir string)
	att   *client.AttachResult // the last attach's answer (the prompt's principal and leash)
	jobs  []remoteJob          // jobs started at this prompt, watched for their end (remote_jobs.go)
}

// dialRemote connects and attaches.
func dialRemote(ctx context.Context, t remoteTarget, stdout, stderr io.Writer) (*remoteSession, error) {
	r := &remoteSession{target: t, stdout: stdout, stderr: stderr}
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// connect dials the socket and attaches. Where the session's render
// channel stands is learnt from the first exec's read (events are matched
// to the exec by its ref, so older ones are skipped): one round trip less
// for a cold `shoal --kernel SOCKET -c SRC`.
func (r *remoteSession) connect(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, remoteDialTimeout)
	defer cancel()
	c, err := client.Dial(ctx, r.target.Socket)
	if err != nil {
		return fmt.Errorf("kernel %s: %w (is shoal-kernel running? start it with `shoal kernel --socket %s`)",
			r.target.Socket, errors.Unwrap(err), r.target.Socket)
	}
	params := client.AttachParams{Session: r.target.Session, Token: r.target.Token,
		Client: &client.ClientInfo{Kind: "shoal", TTY: r.target.TTY}}
	reconnect := r.entered
	if !r.entered && !r.target.KeepCwd {
		if wd, err := os.Getwd(); err == nil {
			params.Cwd = wd
		}
	}
	res, err := c.Attach(ctx, params)
	if err != nil {
		c.Close()
		return fmt.Errorf("kernel %s: attach: %w", r.target.Socket, err)
	}
	if reconnect && res.Created && res.Restored == nil && !r.target.KeepCwd && r.cwd != "" && res.CWD.Raw == "" && res.CWD.Display != r.cwd {
		// The kernel no longer had the session (it restarted without a
		// checkpoint of it, or closed it for idleness), so no other
		// client's move is being undone: the new session goes where this
		// prompt was, through the principal's gate as any attach's
		// directory does. (A session that never left the old kernel's
		// directory has no checkpoint to bring it back.)
		back := params
		back.Cwd = r.cwd
		if again, err := c.Attach(ctx, back); err == nil {
			res = again
		}
	}
	r.entered = true
	r.c, r.att = c, res
	if res.CwdRefused != "" {
		fmt.Fprintf(r.stderr, "shoal: the kernel session stays in %s: %s\n", res.CWD.Display, res.CwdRefused)
	}
	r.setCwd(res.CWD.Display)
	return nil
}

// setCwd records the session's directory the kernel reported.
func (r *remoteSession) setCwd(dir string) {
	if dir == "" || dir == r.cwd {
		return
	}
	r.cwd = dir
	if r.onCwd != nil {
		r.onCwd(dir)
	}
}

// display is the exec param asking for statement output in the target's
// style.
func (r *remoteSession) display() *client.Display {
	return &client.Display{TimePrecisionNS: int64(r.target.Style.TimePrecision), FoldNames: r.target.Style.FoldNames}
}

// Close ends the connection; the kernel session lives on.
func (r *remoteSession) Close() {
	if r.c != nil {
		r.c.Close()
		r.c = nil
	}
}

// IsBound is false for every name: the kernel parses the source again
// with its session's own bindings, so only the loop's view of a bare
// name at a statement head can differ, and it decides nothing but
// whether a final command's outcome is displayed (see Eval).
func (r *remoteSession) IsBound(string) bool { return false }

// ExitRequested reports an `exit` run in the kernel session.
func (r *remoteSession) ExitRequested() (int, bool) {
	if r.exit == nil {
		return 0, false
	}
	return *r.exit, true
}

// Eval runs src as one exec and returns its value or its error as the
// local interpreter would.
func (r *remoteSession) Eval(ctx context.Context, src string, _ *syntax.Program) (value.Value, error) {
	lost := false
	if r.c != nil {
		select {
		case <-r.c.Done():
			// The kernel went away since the last statement (killed,
			// restarted): nothing of this one has been sent, so it may
			// go to whichever kernel answers at the socket now.
			r.Close()
			lost = true
		default:
		}
	}
	if r.c == nil {
		if err := r.connect(ctx); err != nil {
			if lost {
				return nil, fmt.Errorf("lost the kernel at %s, and dialling again failed: %w", r.target.Socket, err)
			}
			return nil, err
		}
		if lost {
			fmt.Fprintf(r.stderr, "shoal: lost the kernel at %s; this statement runs in the kernel answering there now\n", r.target.Socket)
		}
	}
	if refusal := needsTerminal(src); refusal != nil {
		return nil, refusal
	}
	// Watched: its output is printed as it arrives (remote_live.go).
	live := &liveOutput{w: r.stdout}
	res, err := r.c.ExecWatch(ctx, client.ExecParams{Src: src, Elide: &remoteElide, Display: r.display()}, live.event)
	if ctx.Err() != nil {
		// Ctrl-C (or the end): closing the connection cancels the exec on
		// the kernel, with every process it started.
		r.Close()
		return nil, &value.Error{Code: value.CodeCancelled, Msg: "interrupted"}
	}
	if errors.Is(err, client.ErrClosed) {
		// The kernel went away (restarted, stopped): say so; the next
		// statement dials again.
		r.Close()
		return nil, fmt.Errorf("lost the kernel at %s: %w", r.target.Socket, err)
	}
	if err != nil {
		var d proto.RaisedData // a failed exec's data says where it left the session
		if client.ErrorData(err, &d) == nil {
			r.setCwd(d.Cwd)
		}
		ref, lerr := remoteError(err)
		r.printOutput(ctx, ref, live)
		return nil, lerr
	}
	r.setCwd(res.Cwd)
	r.printOutput(ctx, res.Ref, live)
	if res.Exit != nil {
		code := *res.Exit
		r.exit = &code
		return value.Null{}, nil
	}
	v, err := decodeResult(res)
	if err != nil {
		return nil, err
	}
	r.noteJob(src, v)
	return v, nil
}

// decodeResult turns an exec's wire value into a value. An outcome with
// no process (a builtin's, such as ls) is marked as the builtin's, so the
// loop displays it as it does locally; an external command's output has
// already been printed from the render channel. A value the wire does not
// carry whole (elided) is shown as the kernel rendered it.
func decodeResult(res *client.ExecResult) (value.Value, error) {
	if len(res.Value) == 0 {
		return value.Null{}, nil
	}
	v, err := value.FromWire(res.Value)
	if errors.Is(err, value.ErrElided) {
		return value.Str(res.Render + "\n… the whole value, larger than one answer, is " + res.Ref + " in the kernel session"), nil
	}
	if err != nil {
		return nil, fmt.Errorf("kernel answered a value this shoal cannot read: %w", err)
	}
	if o, ok := v.(*value.Outcome); ok && o.Pid == 0 {
		o.Builtin = true
		if o.Out == nil && len(o.Stdout) > 0 {
			// The wire carries a builtin's text answer as out: bytes
			// (cat's) stay bytes, so they pass through exactly.
			if wireOutIsBytes(res.Value) {
				o.Out = value.Bytes(o.Stdout)
			} else {
				o.Out = value.Str(o.Stdout)
			}
		}
	}
	return v, nil
}

// wireOutIsBytes reports whether the wire outcome raw carries its out as
// bytes ({"$":"bytes",…}) rather than as a text.
func wireOutIsBytes(raw json.RawMessage) bool {
	var o struct {
		Out json.RawMessage `json:"out"`
	}
	if json.Unmarshal(raw, &o) != nil || len(o.Out) == 0 || o.Out[0] != '{' {
		return false
	}
	var tag struct {
		T string `json:"$"`
	}
	return json.Unmarshal(o.Out, &tag) == nil && tag.T == "bytes"
}

// printOutput prints what ref's statements wrote, as the render channel
// holds it, less what live printed already.
func (r *remoteSession) printOutput(ctx context.Context, ref string, live *liveOutput) {
	if r.c == nil || ref == "" {
		return
	}
	for range remoteOutputReads {
		evs, err := r.c.EventsRead(ctx, renderChannel, r.since, remoteReadLimit)
		if err != nil || len(evs) == 0 {
			return
		}
		for _, e := range evs {
			r.since = max(r.since, e.Seq)
			var p struct {
				Ref       string  `json:"ref"`
				Output    *string `json:"output"`
				Bytes     int64   `json:"bytes"`
				Truncated bool    `json:"truncated"`
			}
			if json.Unmarshal(e.Payload, &p) != nil || p.Ref != ref || p.Output == nil {
				continue
			}
			io.WriteString(r.stdout, live.rest(*p.Output))
			if shown := max(int64(len(*p.Output)), live.printed()); p.Truncated && shown < p.Bytes {
				fmt.Fprintf(r.stdout, "\n… output cut: the kernel keeps %d of its %d bytes\n", len(*p.Output), p.Bytes)
			}
		}
		if len(evs) < remoteReadLimit {
			return
		}
	}
}

// remoteError turns a kernel error into the error the local interpreter
// would have raised, and the ref it was stored as (if any).
func remoteError(err error) (ref string, _ error) {
	code, ok := client.ErrorCode(err)
	if !ok {
		return "", err
	}
	var rpc *proto.RPCError
	errors.As(err, &rpc)
	switch code {
	case proto.CodeParseError:
		var d proto.ParseErrorData
		_ = client.ErrorData(err, &d)
		pe := &syntax.Error{Msg: rpc.Message, Incomplete: d.Incomplete,
			Span: syntax.Span{Start: int32(d.Span.Start), End: int32(d.Span.End)}}
		if d.Hint != nil {
			pe.Hint = *d.Hint
		}
		return "", pe
	case proto.CodeRaised:
		var d proto.RaisedData
		_ = client.ErrorData(err, &d)
		e := &value.Error{Code: d.Code, Msg: rpc.Message}
		if e.Code == "" {
			e.Code = value.CodeRaised
		}
		if d.Span != nil {
			e.Span, e.HasPos = syntax.Span{Start: int32(d.Span.Start), End: int32(d.Span.End)}, true
		}
		if d.Hint != nil {
			e.Hint = *d.Hint
		}
		if len(d.Status) > 0 {
			if st, serr := value.FromWire(d.Status); serr == nil {
				e.Status = st
			}
		}
		return d.Ref, e
	case proto.CodeLeashDenied, proto.CodeApprovalRequired:
		// Refused before anything ran: the effects the plan needed.
		var d proto.VerdictData
		_ = client.ErrorData(err, &d)
		e := &value.Error{Code: value.CodeDenied, Msg: rpc.Message}
		if code == proto.CodeApprovalRequired {
			e.Code = value.CodeApproval
		}
		var effs []string
		for _, ef := range d.Effects {
			what := ""
			for _, v := range []string{ef.Program, ef.Path, ef.Name} {
				if v != "" {
					what = " " + v
					break
				}
			}
			effs = append(effs, ef.Kind+what)
		}
		if len(effs) > 0 {
			e.Hint = "the source needs: " + strings.Join(effs, ", ")
		}
		return "", e
	}
	// A bad token, a kernel failing: one line saying what the kernel said.
	msg := rpc.Message
	if r := strings.TrimRightFunc(msg, unicode.IsSpace); r != "" {
		msg = r
	}
	return "", fmt.Errorf("kernel: %s (%d)", msg, code)
}

// executeRemote runs src in the kernel session t as one exec and reports
// the outcome with the exit statuses execute gives. A script's arguments
// are bound first, as `args` and `script`, by an exec of their own.
func executeRemote(ctx context.Context, t remoteTarget, name, src, script string, scriptArgs []string, stdout, stderr io.Writer) int {
	r, err := dialRemote(ctx, t, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "shoal: %v\n", err)
		return 1
	}
	defer r.Close()
	if script != "" {
		if _, err := r.Eval(ctx, scriptBindings(script, scriptArgs), nil); err != nil {
			fmt.Fprintf(stderr, "shoal: binding args: %v\n", err)
			return 1
		}
	}
	v, err := r.Eval(ctx, src, nil)
	if code, ok := r.ExitRequested(); ok {
		return code
	}
	if err != nil {
		fmt.Fprint(stderr, diag.Format(name, src, err))
		var pe *syntax.Error
		if errors.As(err, &pe) {
			return 2
		}
		return errorStatus(err)
	}
	// The final value shows as the standalone shoal shows it: passed-through
	// bytes exactly, anything else in the same display style.
	prog, perr := syntax.Parse(src, syntax.ParseOptions{})
	if raw, ok := repl.PassThrough(v); ok {
		_, _ = stdout.Write(raw)
	} else if perr != nil || repl.Printable(registry(), prog, v) {
		if v != nil && v.Kind() != value.KNull {
			fmt.Fprintln(stdout, value.DisplayStyled(v, 0, t.Style))
		}
	}
	return 0
}

// scriptBindings is the source binding a script's `args` (strings) and
// `script` (its path) in the kernel session.
func scriptBindings(script string, args []string) string {
	var b strings.Builder
	b.WriteString("let args = [")
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteShoal(a))
	}
	b.WriteString("]; let script = path(")
	b.WriteString(quoteShoal(script))
	b.WriteString(")")
	return b.String()
}

// quoteShoal writes s as a Shoal string literal that evaluates to s: a
// raw single-quoted one when it can be, else a double-quoted one with
// the interpolation braces, quotes, backslashes and control characters
// escaped.
func quoteShoal(s string) string {
	raw := !strings.ContainsRune(s, '\'')
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			raw = false
		}
	}
	if raw {
		return "'" + s + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '\\' || c == '"' || c == '{' || c == '}':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\u{%x}", c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
