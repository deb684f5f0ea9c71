package kernel

import (
	"context"
	"errors"
	"flag"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	membudget "github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

func TestMemoryLimitFlags(t *testing.T) {
	l := DefaultLimits()
	if l.SessionMemory != DefaultSessionMemory || l.KernelMemory != DefaultKernelMemory || l.MemoryLimit != DefaultMemoryLimit {
		t.Fatalf("defaults %+v", l)
	}
	if !(l.SessionMemory < l.KernelMemory && l.KernelMemory < l.MemoryLimit) {
		t.Errorf("defaults not nested: session %d, kernel %d, process %d", l.SessionMemory, l.KernelMemory, l.MemoryLimit)
	}
	fs := flag.NewFlagSet("k", flag.ContinueOnError)
	RegisterLimitFlags(fs, &l)
	if err := fs.Parse([]string{"--session-memory", "256MiB", "--kernel-memory", "1GiB", "--memory-limit", "3G"}); err != nil {
		t.Fatal(err)
	}
	if l.SessionMemory != 256<<20 || l.KernelMemory != 1<<30 || l.MemoryLimit != 3<<30 {
		t.Errorf("parsed %+v", l)
	}
	if err := fs.Parse([]string{"--session-memory", "lots"}); err == nil {
		t.Error("a bad size was accepted")
	}
}

// TestTranscriptSizeIsTrueAtAnyDepth: a big string under many levels of
// nesting is counted in full (it used to count as nothing past depth 64),
// and a value past the limit is reported just past it.
func TestTranscriptSizeIsTrueAtAnyDepth(t *testing.T) {
	var v value.Value = value.Str(strings.Repeat("d", 1<<20))
	for range 10_000 {
		v = value.NewList([]value.Value{v})
	}
	if got := approxSize(v, 1<<30); got < 1<<20 {
		t.Errorf("deep 1 MiB value sized %d", got)
	}
	if got := approxSize(v, 4096); got != 4097 {
		t.Errorf("sized %d against a 4096 limit, want 4097", got)
	}
}

// TestTranscriptEvictsDeepValues: deep values are evicted by the session
// bound and by the kernel-wide one, as flat ones are.
func TestTranscriptEvictsDeepValues(t *testing.T) {
	deep := func(c byte) value.Value {
		var v value.Value = value.Str(strings.Repeat(string(c), 100_000))
		for range 200 {
			v = value.NewList([]value.Value{v})
		}
		return v
	}
	s := &session{refs: map[int]stored{}, start: 1, limit: 250_000}
	for i := range 5 {
		s.store(deep(byte('a' + i)))
	}
	if _, ok := s.lookup(1); ok {
		t.Error("session bound: the oldest deep value was kept")
	}
	if _, ok := s.lookup(5); !ok {
		t.Error("session bound: the newest deep value was dropped")
	}
	if s.bytes > s.limit {
		t.Errorf("session holds %d bytes past its %d bound", s.bytes, s.limit)
	}

	b := newBudget(300_000)
	s1 := &session{refs: map[int]stored{}, start: 1, limit: 1 << 30, budget: b}
	s2 := &session{refs: map[int]stored{}, start: 1, limit: 1 << 30, budget: b}
	s1.store(deep('x'))
	s1.store(deep('y'))
	s2.store(deep('z'))
	s2.store(deep('w'))
	if b.total() > 300_000+200_000 {
		t.Errorf("kernel-wide transcript holds %d bytes", b.total())
	}
	if _, ok := s1.lookup(1); ok {
		t.Error("kernel bound: the oldest deep value was kept")
	}
}

// TestSessionReleaseGivesBudgetsBack: releasing a session closes its
// memory budget (the kernel budget drops by what it held) and takes its
// values out of the kernel-wide transcript account.
func TestSessionReleaseGivesBudgetsBack(t *testing.T) {
	l := DefaultLimits()
	l.SessionMemory, l.KernelMemory, l.MemoryLimit = 64<<20, 1<<30, 0
	srv, err := New(Config{Dir: t.TempDir(), Limits: &l})
	if err != nil {
		t.Fatal(err)
	}
	sess, _, err := srv.sessions.get(sessionKey{"agent:x", "s"}, func(tt *toolTable) (*eval.Interp, host.Host, error) {
		return srv.newSessionInterp("agent:x", srv.policy.For("agent:x", false), tt)
	}, srv.wireSession)
	if err != nil {
		t.Fatal(err)
	}
	v, err := sess.interp.Eval(context.Background(), `var s = "x"; for i in 0..22 { s = s + s }; [s]`)
	if err != nil {
		t.Fatal(err)
	}
	sess.store(v)
	if srv.mem.Used() < 4<<20 {
		t.Fatalf("kernel memory holds %d bytes with a 4 MiB value alive", srv.mem.Used())
	}
	if srv.sessions.budget.total() < 4<<20 {
		t.Fatalf("kernel transcript holds %d bytes", srv.sessions.budget.total())
	}
	sess.close()
	if got := srv.mem.Used(); got != 0 {
		t.Errorf("kernel memory holds %d bytes after release", got)
	}
	if got := srv.sessions.budget.total(); got != 0 {
		t.Errorf("kernel transcript holds %d bytes after release", got)
	}
	if _, ok := sess.lookup(1); ok {
		t.Error("a released session still answers its refs")
	}
	_, err = sess.interp.Eval(context.Background(), `[1, 2, 3] + (0..100000).map(x => x)`)
	var ve *value.Error
	if !errors.As(err, &ve) || ve.Code != "quota_exceeded" {
		t.Errorf("evaluation in a released session: %v", err)
	}
}

// TestGuardCancelsLargestConsumer: past GuardPercent of the memory limit
// the guard cancels the evaluations charged to the session budget with
// the most usage, and only those, with a cause naming the kernel budget.
func TestGuardCancelsLargestConsumer(t *testing.T) {
	l := DefaultLimits()
	l.MemoryLimit = 0 // set after New: no process limit in a test
	srv, err := New(Config{Dir: t.TempDir(), Limits: &l})
	if err != nil {
		t.Fatal(err)
	}
	srv.limits.MemoryLimit = 1 << 30
	small := membudget.New(SessionMemoryBudget, 0, srv.mem)
	big := membudget.New(SessionMemoryBudget, 0, srv.mem)
	idle := membudget.New(SessionMemoryBudget, 0, srv.mem)
	small.Charge(10 << 20)
	big.Charge(100 << 20)
	idle.Charge(500 << 20) // largest, but running nothing
	var mu sync.Mutex
	var got []error
	var gotSmall bool
	big.OnCancel(func(err error) { mu.Lock(); got = append(got, err); mu.Unlock() })
	small.OnCancel(func(error) { mu.Lock(); gotSmall = true; mu.Unlock() })

	if n := srv.guardStep(1<<30/100*GuardPercent - 1); n != 0 {
		t.Fatalf("guard acted below its threshold (%d cancelled)", n)
	}
	if n := srv.guardStep(1 << 30); n != 1 {
		t.Fatalf("guard cancelled %d evaluations, want 1", n)
	}
	var ex *membudget.ExceededError
	if len(got) != 1 || !errors.As(got[0], &ex) || ex.Name != KernelMemoryBudget || ex.Limit != 1<<30 {
		t.Errorf("cause %v", got)
	}
	if gotSmall {
		t.Error("the smaller consumer was cancelled too")
	}
}

// TestTuneGC checks the collector runs at the raised percent while its
// heap goal stays under the cap (GCGoalShare of the memory limit, or
// GCGoalMax), then at the percent that keeps the goal at the cap, with no
// cliff: just past the cap's fifth the goal is still about the cap (it
// used to fall to twice the live heap at once), down to the process's own
// percent at half the cap.
func TestTuneGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(prev) })
	l := DefaultLimits()
	l.MemoryLimit = 0 // set after New: no process limit in a test
	srv, err := New(Config{Dir: t.TempDir(), Limits: &l})
	if err != nil {
		t.Fatal(err)
	}
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	type step struct {
		live     int64
		min, max int // the percent wanted, within [min, max]
	}
	run := func(limit, capGoal int64, steps []step) {
		t.Helper()
		srv.limits.MemoryLimit = limit
		srv.gcBase, srv.gcHigh, srv.gcNow = 100, 400, 400
		debug.SetGCPercent(400)
		for _, st := range steps {
			was := percent()
			lowered := srv.tuneGC(st.live)
			got := percent()
			if got < st.min || got > st.max || lowered != (got < was) {
				t.Fatalf("limit %d, live %d: GC percent %d (lowered %v), want %d..%d", limit, st.live, got, lowered, st.min, st.max)
			}
			if goal := st.live / 100 * int64(100+got); got > 100 && goal > capGoal {
				t.Fatalf("limit %d, live %d: percent %d makes a goal of %d, over the cap %d", limit, st.live, got, goal, capGoal)
			}
		}
	}
	for _, c := range []struct{ limit, capGoal int64 }{
		{128 << 20, (128 << 20) / 100 * GCGoalShare}, // a small limit: its share bounds the goal
		{DefaultMemoryLimit, GCGoalMax},              // the default limit: GCGoalMax does
	} {
		fifth := c.capGoal / 5
		run(c.limit, c.capGoal, []step{
			{4 << 20, 400, 400},
			{fifth, 400, 400},            // goal at the cap: still raised
			{fifth + fifth/20, 370, 385}, // just past it: the goal stays near the cap, no cliff to 100
			{c.capGoal / 3, 190, 200},    // lower as the heap grows
			{c.capGoal / 2, 100, 100},    // at half the cap: the process's own percent
			{c.limit, 100, 100},          // far past it: never below that
			{c.capGoal / 3, 190, 200},    // and back up as the heap shrinks
			{fifth - 1<<20, 400, 400},    // raised again under the fifth
			{0, 400, 400},                // an empty heap
		})
	}
	// Not tuning (gc-percent 0, or GOGC already higher): left alone.
	srv.gcHigh = 0
	debug.SetGCPercent(250)
	srv.tuneGC(0)
	if got := percent(); got != 250 {
		t.Fatalf("untuned: GC percent %d, want 250", got)
	}
}
