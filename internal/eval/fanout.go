package eval

import (
	"io"
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Handlers and fan-out: on(channel, handler) and parallel(thunk...), both
// built on language tasks (task.go) and so charged to MaxLiveTasks.

// fnOn is on(channel_or_name, handler): it subscribes to the channel at
// once (replaying its ring, then live, as .events() does), so nothing
// emitted after the call is missed, and starts a task that calls handler
// with each event record {channel, seq, ts, payload} in order until it is
// cancelled or a call raises (the task then fails with that error). The
// handler's output goes to the session's own output, as a background
// job's does in a shell: commands in statement position stream there, and
// a handler that ends with a command or text (`event => { echo (event) }`)
// has it shown (showHandlerResult).
func fnOn(t *thread, a value.Args) (value.Value, error) {
	if len(a.Pos) != 2 || len(a.Named) > 0 {
		return nil, errorf(codeArg, "on takes a channel (or its name) and a handler: on(channel(\"user.builds\"), event => ...)")
	}
	name, ok := channelName(a.Pos[0])
	if s, isStr := a.Pos[0].(value.Str); isStr {
		if s == "" {
			return nil, errorf(codeArg, "on: the channel name is empty")
		}
		name, ok = string(s), true
	}
	if !ok {
		return nil, errorf(codeType, "on expects a channel or a channel name, got %s", value.TypeName(a.Pos[0]))
	}
	fn := a.Pos[1]
	switch f := fn.(type) {
	case *Closure:
		if n := len(f.Params); n > 1 && f.Params[1].Default == nil {
			return nil, errorf(codeArg, "on: the handler takes %d parameters; it is called with one event record", n).
				WithHint("on(ch, event => ...)")
		}
	case *value.Builtin, *CmdRef:
	default:
		return nil, errorf(codeType, "on expects a handler function, got %s", value.TypeName(fn))
	}
	sub, err := t.in.Channels().subscribe(name, true, -1)
	if err != nil {
		return nil, err
	}
	out, errOut := t.in.sharedOutput()
	tk, err := t.startTask("on "+name, func(c *thread) (value.Value, error) {
		defer sub.close()
		so, se := c.task.sinkWriters()
		c.stdout, c.stderr = withSink(out, so), withSink(errOut, se)
		for {
			if err := c.checkpoint(); err != nil {
				return nil, err
			}
			ev, ok, _, err := sub.next(c, 0)
			if err != nil {
				return nil, err
			}
			if !ok {
				return value.Nil, nil
			}
			v, err := c.callValue(fn, []value.Value{ev}, nil, syntax.Span{})
			if err != nil {
				return nil, err
			}
			showHandlerResult(v, out, errOut)
		}
	})
	if err != nil {
		sub.close()
		return nil, err
	}
	return tk, nil
}

// showHandlerResult shows what one on handler call ended with when it is
// output: a command's captured stdout and stderr (a builtin's value when
// it wrote none), or text (echo in value position is its text) as a line.
// Other values (null, numbers, records) are results, not output, and are
// dropped.
func showHandlerResult(v value.Value, out, errOut io.Writer) {
	switch x := v.(type) {
	case *value.Outcome:
		if len(x.Stdout) == 0 && x.Builtin && x.Out != nil && x.Out.Kind() != value.KNull {
			_, _ = io.WriteString(out, value.Display(x.Out)+"\n")
		}
		_, _ = out.Write(x.Stdout)
		_, _ = errOut.Write(x.Stderr)
	case value.Str:
		line := string(x)
		if !strings.HasSuffix(line, "\n") {
			line += "\n"
		}
		_, _ = io.WriteString(out, line)
	}
}

// fnParallel is parallel(thunk..., settle: false): it runs each
// zero-argument function as a task, at most MaxParallel at once, and
// returns their results in order. Without settle the first failure is
// raised once the running branches are cancelled; with settle: true every
// branch runs to its end and each result is {ok: true, value} or
// {ok: false, error}.
func fnParallel(t *thread, a value.Args) (value.Value, error) {
	settle := false
	for _, na := range a.Named {
		if na.Name != "settle" {
			return nil, errorf(codeArg, "parallel takes thunks and settle: bool, not %s:", na.Name)
		}
		b, ok := na.Value.(value.Bool)
		if !ok {
			return nil, errorf(codeType, "parallel settle: expects a bool, got %s", value.TypeName(na.Value))
		}
		settle = bool(b)
	}
	out := make([]value.Value, 0, len(a.Pos))
	for start := 0; start < len(a.Pos); start += MaxParallel {
		batch := a.Pos[start:min(start+MaxParallel, len(a.Pos))]
		tks := make([]*Task, 0, len(batch))
		cancelAll := func() {
			for _, tk := range tks {
				tk.Cancel()
			}
		}
		for _, fn := range batch {
			tk, err := t.startTaskAs(&Task{desc: "parallel branch", awaited: true}, func(c *thread) (value.Value, error) {
				if cl, ok := fn.(*Closure); ok && c.task.streams() {
					// Watched: the command the branch ends with streams too.
					return c.callClosureMode(cl, nil, nil, mStream)
				}
				return c.callValue(fn, nil, nil, syntax.Span{})
			})
			if err != nil {
				cancelAll()
				return nil, err
			}
			tks = append(tks, tk)
		}
		// Wait for the branches as they finish, so a failure is seen (and
		// the others cancelled) without waiting for a slower branch first.
		results := make([]value.Value, len(tks))
		var failed error
		finished := make(chan int, len(tks))
		for i, tk := range tks {
			go func() { <-tk.done; finished <- i }()
		}
		for range tks {
			var i int
			var werr error
			t.unlocked(func() {
				select {
				case i = <-finished:
				case <-t.ctx.Done():
					werr = hostError(t.ctx.Err())
				}
			})
			if werr != nil {
				cancelAll()
				return nil, werr
			}
			err := tks[i].awaitError()
			v, _ := tks[i].result()
			switch {
			case err == nil && settle:
				results[i] = value.NewRecord([]string{"ok", "value"}, []value.Value{value.Bool(true), v})
			case err == nil:
				results[i] = v
			case settle:
				e, _ := recoverable(err)
				if e == nil {
					e = hostError(err)
				}
				results[i] = value.NewRecord([]string{"ok", "error"}, []value.Value{value.Bool(false), e})
			case failed == nil:
				failed = err
				cancelAll()
			}
		}
		if failed != nil {
			return nil, failed
		}
		out = append(out, results...)
	}
	return value.NewList(out), nil
}
