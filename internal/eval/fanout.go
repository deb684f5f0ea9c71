package eval

import (
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Handlers and fan-out: on(channel, handler) and parallel(thunk...), both
// built on language tasks (task.go) and so charged to MaxLiveTasks.

// fnOn is on(channel_or_name, handler): it subscribes at once (replaying
// the channel's ring, then live, like .events()), so nothing published
// after the call is missed, and returns the task that calls handler with
// each event record in turn. The backlog waiting for the handler is the
// subscription's bounded queue (ChannelQueue events; past it a
// {dropped: n} record comes in order). The task ends when cancelled, when
// the handler fails (with its error) or when the session closes.
func fnOn(t *thread, a value.Args) (value.Value, error) {
	if len(a.Pos) != 2 || len(a.Named) > 0 {
		return nil, errorf(codeArg, "on takes a channel (or its name) and a handler")
	}
	name, ok := channelName(a.Pos[0])
	if s, isStr := a.Pos[0].(value.Str); isStr && s != "" {
		name, ok = string(s), true
	}
	if !ok {
		return nil, errorf(codeType, "on expects a channel or a channel name, got %s", value.TypeName(a.Pos[0]))
	}
	fn := a.Pos[1]
	switch fn.(type) {
	case *Closure, *value.Builtin, *CmdRef:
	default:
		return nil, errorf(codeType, "on expects a handler function, got %s", value.TypeName(fn))
	}
	sub, err := t.in.Channels().subscribe(name, true, -1)
	if err != nil {
		return nil, err
	}
	tk, err := t.startTask("on "+name, func(c *thread) (value.Value, error) {
		defer sub.close()
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
			if _, err := c.callValue(fn, []value.Value{ev}, nil, syntax.Span{}); err != nil {
				return nil, err
			}
		}
	})
	if err != nil {
		sub.close()
		return nil, err
	}
	return tk, nil
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
			tk, err := t.startTaskAs("parallel branch", true, func(c *thread) (value.Value, error) {
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
