package clock_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/stdlib"
	"github.com/shoalgo/shoal/internal/value"
)

// registry is the standard registry every is tested in.
var registry = stdlib.Registry()

// session is a session on the standard registry whose host clock reads
// now (the zero time: the real clock).
func session(t *testing.T, now time.Time, out *bytes.Buffer) *eval.Interp {
	t.Helper()
	var opts []host.Option
	if !now.IsZero() {
		opts = append(opts, host.WithClock(func() time.Time { return now }))
	}
	o := eval.Options{Registry: registry, Host: host.NewOS(host.AllowAll, opts...), Dir: t.TempDir()}
	if out != nil {
		o.Stdout, o.Stderr = out, out
	}
	in, err := eval.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestTranscripts runs testdata/*.txt, each in a fresh session.
func TestTranscripts(t *testing.T) {
	evaltest.Run(t, func(t *testing.T) (evaltest.Session, *bytes.Buffer) {
		var out bytes.Buffer
		return session(t, time.Time{}, &out), &out
	}, "testdata/*.txt")
}

// TestEveryYieldsDatetimes: each tick is stamped with the host's clock,
// not the process's.
func TestEveryYieldsDatetimes(t *testing.T) {
	now := time.Date(2026, 7, 9, 14, 0, 0, 0, time.UTC)
	v, err := session(t, now, nil).Eval(context.Background(), "every(1ms).take(2).collect()")
	if err != nil {
		t.Fatal(err)
	}
	items := v.(*value.List).Items
	if len(items) != 2 || !value.Equal(items[0], value.DateTime{T: now}) || !value.Equal(items[1], value.DateTime{T: now}) {
		t.Errorf("every ticks = %s, want two host-clock datetimes", value.Inline(v))
	}
}

// TestEveryCancels: a tick being waited for ends with the evaluation's
// context, in every position a live stream is consumed.
func TestEveryCancels(t *testing.T) {
	for _, src := range []string{
		`every(1h).take(1).collect()`,
		`for x in every(1h) { x }`,
		`every(1h).merge(channel("q").events()).take(1).collect()`,
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, err := session(t, time.Time{}, nil).Eval(ctx, src)
		cancel()
		var e *value.Error
		if !errors.As(err, &e) || e.Code != value.CodeCancelled {
			t.Errorf("%q: err = %v, want cancelled", src, err)
		}
	}
}
