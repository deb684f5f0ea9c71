// Package clock is the clock library: every(INTERVAL), a live stream
// of the time once per interval, stamped with the session's clock (the
// time effect, asked at the call and at each tick). Its entries are one
// registry Part, and its value function is the first one outside the
// evaluator, on eval's exported FuncCall.
package clock

import (
	"time"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

// Register adds every to p.
func Register(p *eval.Part) {
	p.Func(&eval.Func{Name: "every", Call: every, Effects: func(d *leash.Deriver) { d.Clock() },
		Help: eval.Help{Summary: "a stream that yields the time once every interval", Usage: "every(DURATION)", Example: "every(1s).take(3).collect()"}})
}

// Part is clock's registry part, for eval.NewRegistry.
func Part() *eval.Part {
	p := &eval.Part{}
	Register(p)
	return p
}

// every is `every(interval)`: a live stream of datetimes, one per
// interval. It is pull-driven: no goroutine runs ahead of the consumer, so
// a slow consumer sees the ticks it missed coalesced into one, and an
// abandoned stream holds nothing. Ticks are scheduled on the monotonic
// clock and stamped with the host clock; waiting ends with the
// evaluation's context.
func every(c *eval.FuncCall, a value.Args) (value.Value, error) {
	if len(a.Pos) != 1 || len(a.Named) > 0 {
		return nil, value.Errorf(value.CodeArg, "every takes one duration")
	}
	d, ok := a.Pos[0].(value.Duration)
	if !ok {
		return nil, value.Errorf(value.CodeType, "every expects a duration, got %s", value.TypeName(a.Pos[0]))
	}
	if d <= 0 {
		return nil, value.Errorf(value.CodeArg, "every needs a positive interval")
	}
	// Each tick is a reading of the clock: ask for it now, so a refusal
	// comes at once rather than at the first tick.
	if _, err := c.Env().Clock(); err != nil {
		return nil, err
	}
	iv := time.Duration(d)
	return value.NewStream("every("+value.Inline(d)+")", false, &tickSource{
		every: iv,
		next:  time.Now().Add(iv),
	}), nil
}

// tickSource yields the time at each interval boundary.
type tickSource struct {
	every time.Duration
	next  time.Time // monotonic
}

func (s *tickSource) Next(env value.Env) (value.Value, bool, error) {
	ctx := env.Context()
	if wait := time.Until(s.next); wait > 0 {
		tm := time.NewTimer(wait)
		var werr error
		value.Block(env, func() {
			select {
			case <-tm.C:
			case <-ctx.Done():
				tm.Stop()
				werr = eval.HostError(ctx.Err())
			}
		})
		if werr != nil {
			return nil, false, werr
		}
	}
	v, err := s.tick(env)
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// tick stamps the tick with the wall clock (the time effect) and schedules
// the next boundary; missed boundaries are coalesced rather than replayed
// in a burst.
func (s *tickSource) tick(env value.Env) (value.Value, error) {
	now := time.Now()
	s.next = s.next.Add(s.every)
	if s.next.Before(now) {
		s.next = now.Add(s.every)
	}
	stamp, err := env.Clock()
	if err != nil {
		return nil, err
	}
	return value.DateTime{T: stamp}, nil
}

// Poll reports a tick when its boundary has passed.
func (s *tickSource) Poll(env value.Env) (value.Value, bool, bool, error) {
	if time.Now().Before(s.next) {
		return nil, true, false, nil
	}
	v, err := s.tick(env)
	if err != nil {
		return nil, false, false, err
	}
	return v, true, true, nil
}

func (*tickSource) Close() {}
