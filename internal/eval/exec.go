package eval

import (
	"bufio"
	"bytes"
	"context"
	"sort"
	"strings"

	"github.com/shoalgo/shoal/internal/adapters"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// redirects are a command's evaluated `>`, `>>` and `<`.
type redirects struct {
	out      string // absolute target of > or >>; "" when none
	appendTo bool
	in       []byte
	hasIn    bool
	// path, when set, is the child's PATH: Reef's view of the bound
	// tools before (or, hermetic, instead of) the session's.
	path string
}

func (t *thread) evalRedirects(rs []*syntax.Redirect, sc *scope) (*redirects, error) {
	r := &redirects{}
	for _, rd := range rs {
		cv, err := t.evalCmdArg(rd.Target, sc)
		if err != nil {
			return nil, withSpan(err, rd.Span)
		}
		target, err := argText(cv.v)
		if err != nil {
			return nil, withSpan(err, rd.Span)
		}
		p := t.abs(target)
		switch rd.Kind {
		case syntax.RedirOut, syntax.RedirAppend:
			r.out, r.appendTo = p, rd.Kind == syntax.RedirAppend
		case syntax.RedirIn:
			data, err := t.host.ReadFile(t.ctx, p)
			if err != nil {
				return nil, withSpan(hostError(err), rd.Span)
			}
			r.in, r.hasIn = data, true
		}
	}
	return r, nil
}

// openRedirect creates or truncates (for `>>`: creates if missing) the
// redirect target before anything runs, so a refused or impossible target
// fails without starting the program, and returns a writer that appends
// the program's stdout to it as it arrives.
func (t *thread) openRedirect(r *redirects) (*redirectWriter, error) {
	if err := t.writeRedirect(r, nil); err != nil {
		return nil, err
	}
	w := &redirectWriter{t: t, path: r.out}
	w.buf = bufio.NewWriterSize(appendFunc(w.appendChunk), redirectChunk)
	return w, nil
}

// stmtCapture bounds what a non-final statement keeps of each stream.
const stmtCapture = 64 << 10

// redirectChunk is how many bytes a redirect buffers between appends.
const redirectChunk = 1 << 20

// redirectWriter streams a program's stdout into a redirect target through
// the host, in redirectChunk appends. The first failure is kept and
// reported by close; later writes are dropped.
type redirectWriter struct {
	t    *thread
	path string
	buf  *bufio.Writer
	err  error
}

func (w *redirectWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return len(p), nil
	}
	if _, err := w.buf.Write(p); err != nil && w.err == nil {
		w.err = err
	}
	return len(p), nil
}

func (w *redirectWriter) appendChunk(p []byte) (int, error) {
	undoLose(w.t.ctx, "a redirect")
	if err := w.t.host.WriteFile(context.WithoutCancel(w.t.ctx), w.path, p, true); err != nil {
		return 0, err
	}
	return len(p), nil
}

// close flushes what is buffered and reports the first failure.
func (w *redirectWriter) close() error {
	if w.err == nil {
		w.err = w.buf.Flush()
	}
	if w.err != nil {
		return hostError(w.err)
	}
	return nil
}

// appendFunc adapts a function to io.Writer.
type appendFunc func(p []byte) (int, error)

func (f appendFunc) Write(p []byte) (int, error) { return f(p) }

func (t *thread) writeRedirect(r *redirects, data []byte) error {
	undoLose(t.ctx, "a redirect")
	if err := t.host.WriteFile(t.ctx, r.out, data, r.appendTo); err != nil {
		return hostError(err)
	}
	return nil
}

// runExternal spawns prog with args through the host. In stream mode its
// output goes to the thread's writers as it is produced (and is still
// captured); with mRaise a failure raises cmd_failed.
//
// Memory stays bounded whatever the program prints: the host keeps at most
// its capture bound per stream in memory (stmtCapture for a non-final
// statement, whose streamed output nothing reads again) and, because the evaluator has no
// use for a spill file, drops the rest (Spawn.NoSpill). A value whose stdout
// lost bytes is marked truncated, so `.out` refuses to pretend the prefix is
// the whole payload (see outcomeOut). A `>`/`>>` target receives the whole
// stream, written as it is produced, not just the captured prefix.
func (t *thread) runExternal(name, prog string, args []string, r *redirects, m mode) (value.Value, error) {
	return t.spawnExternal(name, prog, args, r, m, nil)
}

// spawnExternal is runExternal with what a command adapter adds (nil:
// nothing): its ok codes and output parser, applied before a failure
// raises.
func (t *thread) spawnExternal(name, prog string, args []string, r *redirects, m mode, ar *adaptedRun) (value.Value, error) {
	spawn := &host.Spawn{
		Argv:    append([]string{prog}, args...),
		Dir:     t.dir,
		Env:     t.env,
		NoSpill: true,
	}
	if r != nil && r.path != "" {
		spawn.Env = withEnv(t.env, "PATH", r.path)
	}
	// An adapted program whose stdout has a parser is captured even in
	// statement position, and what it printed is shown as the parsed
	// value (`git status` shows the status table, not the pinned
	// porcelain), or as written when it does not parse.
	shows := ar != nil && ar.spec.Parse != "none" && m&mStream != 0 && (r == nil || r.out == "")
	if tty := t.in.opts.Terminal; tty != nil && t.task == nil && m&mStream != 0 && !shows && (r == nil || (!r.hasIn && r.out == "")) {
		return t.runOnTerminal(name, args, spawn, int(tty.Fd()), m, ar)
	}
	if m&mEmit != 0 && !shows {
		// A non-final statement's outcome is dropped once it has streamed;
		// only a failure's stderr is read, for cmd_failed.
		spawn.MaxCapture = stmtCapture
	}
	if r != nil && r.hasIn {
		spawn.Stdin = bytes.NewReader(r.in)
	}
	var file *redirectWriter
	if r != nil && r.out != "" {
		var err error
		if file, err = t.openRedirect(r); err != nil {
			return nil, err
		}
		spawn.StreamOut = file
	} else if m&mStream != 0 && !shows {
		spawn.StreamOut = t.stdout
	}
	if m&mStream != 0 {
		spawn.StreamErr = t.stderr
	}
	var res *host.Result
	var err error
	undoLose(t.ctx, "a program ran")
	t.unlocked(func() { res, err = t.host.Run(t.ctx, spawn) })
	if err != nil {
		return nil, hostError(err)
	}
	if res.SpillPath != "" {
		// A host that spilled despite NoSpill: nothing reads the file.
		_ = t.host.Remove(context.WithoutCancel(t.ctx), res.SpillPath, false)
	}
	if err := t.ctx.Err(); err != nil {
		// Cancelled: the host has killed the process group; report the
		// cancellation rather than the signal death it caused.
		return nil, hostError(err)
	}
	o := &value.Outcome{
		Cmd:    displayCmd(name, args),
		Argv:   spawn.Argv,
		Status: res.Status,
		Signal: res.Signal,
		Stdout: res.Stdout,
		Stderr: res.Stderr,
		Pid:    res.Pid,
		Dur:    res.Dur,
	}
	truncated := res.Truncated && len(res.Stdout) > 0 && len(res.Stdout) >= len(res.Stderr)
	if truncated {
		// Both streams share one bound, so stdout lost bytes unless it is
		// shorter than stderr (which then was the truncated one).
		markTruncated(o)
	}
	if err := t.finishAdapted(o, ar, truncated); err != nil {
		return nil, err
	}
	if shows {
		// A `lines` parser's list is the text as written: shown as
		// written, not as a list (whose display numbers its items).
		if o.Out != nil && o.Ok() && ar.spec.Parse != "lines" {
			t.showAdapted(o, ar)
		} else {
			_, _ = t.stdout.Write(o.Stdout)
		}
	}
	if file != nil {
		if err := file.close(); err != nil {
			return nil, err
		}
	}
	if m&mRaise != 0 && !o.Ok() {
		return nil, cmdFailed(o)
	}
	return o, nil
}

// runOnTerminal runs spawn in the foreground of the terminal: its output
// goes straight to the terminal, so the outcome holds status only. A
// command the user stops (Ctrl-Z) becomes a stopped job (jobterm.go): the
// statement ends, with the job's task as its value in value position.
func (t *thread) runOnTerminal(name string, args []string, spawn *host.Spawn, tty int, m mode, ar *adaptedRun) (value.Value, error) {
	var res *host.Result
	var err error
	undoLose(t.ctx, "a program ran")
	t.unlocked(func() { res, err = t.host.RunTerminal(t.ctx, spawn, tty) })
	if err != nil {
		return nil, hostError(err)
	}
	if res.Stopped != nil {
		tk, err := t.parkTerminal(name, args, spawn.Argv, res.Stopped)
		if err != nil {
			return nil, err
		}
		if m&mStream != 0 {
			return value.Nil, nil
		}
		return tk, nil
	}
	if err := t.ctx.Err(); err != nil {
		return nil, hostError(err)
	}
	o := &value.Outcome{Cmd: displayCmd(name, args), Argv: spawn.Argv, Status: res.Status, Signal: res.Signal, Pid: res.Pid, Dur: res.Dur}
	if ar != nil {
		o.OkCodes = ar.okCodes
	}
	if m&mRaise != 0 && !o.Ok() {
		return nil, cmdFailed(o)
	}
	return o, nil
}

// interpreterArgs gives how each known interpreter receives an inline
// program: the flag preceding it, "" for a positional program, or absent
// for the program on stdin.
var interpreterArgs = map[string]string{
	"sh": "-c", "bash": "-c", "zsh": "-c", "fish": "-c", "python": "-c", "python3": "-c",
	"node": "-e", "ruby": "-e", "perl": "-e", "lua": "-e", "Rscript": "-e", "osascript": "-e",
	"php": "-r", "deno": "eval", "jq": "",
}

// InterpreterTools lists the interpreters an interpreter block (`sh { … }`)
// knows how to hand an inline program, sorted.
func InterpreterTools() []string {
	out := make([]string, 0, len(interpreterArgs))
	for n := range interpreterArgs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// runLangBlock runs an interpreter block; stdin, when non-nil, is fed to
// the interpreter.
func (t *thread) runLangBlock(n *syntax.LangBlock, stdin []byte, m mode) (value.Value, error) {
	src := dedent(n.Source)
	if ad, ok := t.in.opts.Adapters.Lookup(n.Tool); ok && ad.Class == adapters.ClassInterpreter {
		return t.runInterpreterAdapter(ad, src, stdin, m)
	}
	prog, view, reefed, err := t.reefResolveHead(n.Tool)
	if !reefed {
		// No scope constrains the interpreter: PATH decides.
		prog, err = t.host.LookPath(t.ctx, n.Tool, t.env)
	} else if err != nil {
		return nil, err
	}
	if err != nil {
		if gateStop(err) {
			return nil, hostError(err)
		}
		return nil, errorf(codeNotFound, "interpreter not found: %s", n.Tool)
	}
	flag, inline := interpreterArgs[n.Tool]
	var args []string
	r := &redirects{path: view}
	switch {
	case !inline:
		if stdin != nil {
			return nil, errorf(codeFeed, "%s reads its program on stdin, so it cannot also be fed data", n.Tool)
		}
		r.in, r.hasIn = []byte(src), true
	case flag == "":
		args = []string{src}
	default:
		args = []string{flag, src}
	}
	if stdin != nil {
		r.in, r.hasIn = stdin, true
	}
	return t.runExternal(n.Tool, prog, args, r, m)
}

// dedent trims an interpreter block body: a one-line body loses its
// surrounding blanks; a multi-line body loses blank edge lines and the
// common indentation.
func dedent(src string) string {
	if !strings.Contains(src, "\n") {
		return strings.TrimSpace(src)
	}
	lines := strings.Split(src, "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ws := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ws, false
			continue
		}
		for !strings.HasPrefix(l, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, prefix)
	}
	return strings.Join(lines, "\n") + "\n"
}
