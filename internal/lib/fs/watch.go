package fs

// Live file system stream sources: watch(path_or_glob, recursive:) and
// tail(file, from_start:). Both run through the host (fs_read), hold at
// most host.LiveQueue items for a slow consumer and say so when they drop.

import (
	"context"
	"runtime"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

func registerWatch(p *eval.Part) {
	watched := func(d *leash.Deriver) { d.Watched() }
	p.Func(&eval.Func{Name: "watch", Call: fnWatch, Help: eval.Help{Summary: "a stream of filesystem changes (created, modified, removed)", Usage: "watch(PATH_OR_GLOB, recursive: BOOL)", Example: "watch(\"src\", recursive: true).take(1).collect()"}, Effects: watched})
	p.Func(&eval.Func{Name: "tail", Call: fnTail, Help: eval.Help{Summary: "a stream of the complete lines appended to a file", Usage: "tail(PATH, from_start: BOOL)", Example: "tail(\"server.log\", from_start: true).take(3).collect()"}, Effects: watched})
}

// boolArgs reads the named bool arguments a function accepts into dst,
// refusing any other name.
func boolArgs(fn string, a value.Args, dst map[string]*bool) error {
	for _, na := range a.Named {
		p, ok := dst[na.Name]
		if !ok {
			return value.Errorf(bfsArgError, "%s has no argument %q", fn, na.Name)
		}
		b, ok := na.Value.(value.Bool)
		if !ok {
			return value.Errorf(bfsTypeError, "%s: %s must be a bool, got %s", fn, na.Name, value.TypeName(na.Value))
		}
		*p = bool(b)
	}
	return nil
}

// fnWatch: watch(path | str | glob, recursive: false) -> stream of
// {path, kind, ts} records ("created", "modified", "removed"), with
// coalesced: true on the record that stands for dropped events. A glob
// watches its literal directory prefix and keeps the paths it matches.
func fnWatch(c *eval.FuncCall, a value.Args) (value.Value, error) {
	if len(a.Pos) != 1 {
		return nil, value.Errorf(bfsArgError, "watch takes one path or glob").WithHint(`watch(path("./src"), recursive: true)`)
	}
	var recursive bool
	if err := boolArgs("watch", a, map[string]*bool{"recursive": &recursive}); err != nil {
		return nil, err
	}
	var root string
	var match func(string) bool
	switch x := a.Pos[0].(type) {
	case value.Path, value.Str:
		s, err := eval.PathText(x)
		if err != nil {
			return nil, err
		}
		root = c.Abs(s)
	case *value.Glob:
		r, m, deep, err := host.GlobWatch(c.Dir(), c.ExpandHome(x.Pattern), x.Hidden)
		if err != nil {
			return nil, value.Errorf(bfsArgError, "watch: %v", err)
		}
		root, match, recursive = r, m, recursive || deep
	default:
		return nil, value.Errorf(bfsTypeError, "watch expects a path or glob, got %s", value.TypeName(a.Pos[0]))
	}
	w, err := c.Host().Watch(c.Ctx(), root, recursive)
	if err != nil {
		return nil, eval.HostError(err)
	}
	src := &watchSource{w: w, match: match}
	// A stream dropped without being driven to its end still lets go of
	// its watch once it is garbage.
	runtime.AddCleanup(src, func(w host.Watcher) { _ = w.Close() }, w)
	return value.NewStream("watch("+value.Inline(a.Pos[0])+")", false, src), nil
}

// watchKeys are the fields of a watch record.
func watchKeys() []string { return []string{"path", "kind", "ts"} }

type watchSource struct {
	w     host.Watcher
	match func(string) bool // nil: every event
}

func (s *watchSource) Next(env value.Env) (value.Value, bool, error) {
	for {
		var e host.FSEvent
		var err error
		value.Block(env, func() { e, err = s.w.Next(env.Context()) })
		if err != nil {
			return nil, false, liveError(env.Context(), err)
		}
		if v, keep := s.record(e); keep {
			return v, true, nil
		}
	}
}

// record is the value of event e, or false when the glob filters it out.
func (s *watchSource) record(e host.FSEvent) (value.Value, bool) {
	if s.match != nil && !e.Coalesced && !s.match(e.Path) {
		return nil, false
	}
	vals := []value.Value{value.Path(e.Path), value.Str(e.Kind), value.DateTime{T: e.Time}}
	if e.Coalesced {
		return value.NewRecord(append(watchKeys(), "coalesced"), append(vals, value.Bool(true))), true
	}
	return value.NewRecord(watchKeys(), vals), true
}

// Poll reports a waiting event without blocking, so merge can interleave
// a watch with another live source by readiness.
func (s *watchSource) Poll(env value.Env) (value.Value, bool, bool, error) {
	for {
		e, ok, err := s.w.TryNext()
		if err != nil {
			return nil, false, true, liveError(env.Context(), err)
		}
		if !ok {
			return nil, true, false, nil
		}
		if v, keep := s.record(e); keep {
			return v, true, true, nil
		}
	}
}

func (s *watchSource) Close() { _ = s.w.Close() }

// fnTail: tail(file, from_start: false) -> stream of complete lines (str),
// with a {dropped: n} record where lines were dropped for a slow consumer.
func fnTail(c *eval.FuncCall, a value.Args) (value.Value, error) {
	if len(a.Pos) != 1 {
		return nil, value.Errorf(bfsArgError, "tail takes one file").WithHint(`tail(path("./service.log"))`)
	}
	var fromStart bool
	if err := boolArgs("tail", a, map[string]*bool{"from_start": &fromStart}); err != nil {
		return nil, err
	}
	s, err := eval.PathText(a.Pos[0])
	if err != nil {
		return nil, err
	}
	tl, err := c.Host().Tail(c.Ctx(), c.Abs(s), fromStart)
	if err != nil {
		return nil, eval.HostError(err)
	}
	src := &tailSource{t: tl}
	runtime.AddCleanup(src, func(tl host.Tailer) { _ = tl.Close() }, tl)
	return value.NewStream("tail("+value.Inline(a.Pos[0])+")", false, src), nil
}

type tailSource struct{ t host.Tailer }

func (s *tailSource) Next(env value.Env) (value.Value, bool, error) {
	var it host.TailItem
	var err error
	value.Block(env, func() { it, err = s.t.Next(env.Context()) })
	if err != nil {
		return nil, false, liveError(env.Context(), err)
	}
	return tailValue(it), true, nil
}

// Poll reports a waiting line without blocking (see watchSource.Poll).
func (s *tailSource) Poll(env value.Env) (value.Value, bool, bool, error) {
	it, ok, err := s.t.TryNext()
	if err != nil {
		return nil, false, true, liveError(env.Context(), err)
	}
	if !ok {
		return nil, true, false, nil
	}
	return tailValue(it), true, true, nil
}

func tailValue(it host.TailItem) value.Value {
	if it.Dropped > 0 {
		return value.NewRecord([]string{"dropped"}, []value.Value{value.Int(it.Dropped)})
	}
	return value.Str(it.Line)
}

func (s *tailSource) Close() { _ = s.t.Close() }

// liveError is the language error for a live source that stopped: the
// evaluation's cancellation when that is why, else the source's failure.
func liveError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return eval.HostError(ctx.Err())
	}
	return eval.HostError(err)
}
