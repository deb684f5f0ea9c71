package budget

import (
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

func TestChargeWithinAndPastLimit(t *testing.T) {
	b := New("session memory", 100, nil)
	if err := b.Charge(60); err != nil {
		t.Fatalf("charge 60 of 100: %v", err)
	}
	if err := b.Charge(40); err != nil {
		t.Fatalf("charge to exactly the limit: %v", err)
	}
	err := b.Charge(1)
	var ex *ExceededError
	if !errors.As(err, &ex) {
		t.Fatalf("charge past the limit: %v, want *ExceededError", err)
	}
	if ex.Name != "session memory" || ex.Limit != 100 || ex.Used != 100 || ex.Want != 1 {
		t.Errorf("error fields = %+v", ex)
	}
	if got := b.Used(); got != 100 {
		t.Errorf("a failed charge changed usage to %d", got)
	}
	b.Release(30)
	if err := b.Charge(30); err != nil {
		t.Errorf("charge after release: %v", err)
	}
	if b.Peak() != 100 {
		t.Errorf("peak = %d, want 100", b.Peak())
	}
}

func TestErrorMessageNamesBudgetAndLimit(t *testing.T) {
	b := New("kernel memory", 8<<30, nil)
	b.Charge(8<<30 - 1<<20)
	err := b.Charge(64 << 20)
	if err == nil {
		t.Fatal("charge fitted")
	}
	want := "the kernel memory budget (8 GiB) is exhausted: 8191 MiB in use, 64 MiB more asked"
	if err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

func TestNilBudgetIsUnlimited(t *testing.T) {
	var b *Budget
	if err := b.Charge(1 << 62); err != nil {
		t.Fatal(err)
	}
	b.Release(5)
	b.Close()
	if b.Used() != 0 || b.Limit() != 0 || b.Name() != "" || b.Cancel(nil) != 0 {
		t.Error("nil budget reports state")
	}
	b.OnCancel(func(error) {})()
}

func TestUnlimitedStillCounts(t *testing.T) {
	b := New("all", 0, nil)
	if err := b.Charge(1 << 40); err != nil {
		t.Fatal(err)
	}
	if b.Used() != 1<<40 {
		t.Errorf("used %d", b.Used())
	}
}

func TestChildChargesParentAllOrNothing(t *testing.T) {
	k := New("kernel memory", 100, nil)
	a := New("session memory", 80, k)
	c := New("session memory", 80, k)
	if err := a.Charge(70); err != nil {
		t.Fatal(err)
	}
	err := c.Charge(40)
	var ex *ExceededError
	if !errors.As(err, &ex) || ex.Name != "kernel memory" {
		t.Fatalf("charge past the parent: %v, want kernel memory exceeded", err)
	}
	if c.Used() != 0 || k.Used() != 70 {
		t.Errorf("failed charge left usage: child %d, parent %d", c.Used(), k.Used())
	}
	if err := a.Charge(11); err == nil || !strings.Contains(err.Error(), "session memory") {
		t.Errorf("charge past the child's own limit: %v", err)
	}
	if err := c.Charge(30); err != nil {
		t.Errorf("charge that fits both: %v", err)
	}
	if k.Used() != 100 {
		t.Errorf("parent used %d, want 100", k.Used())
	}
	a.Release(70)
	if k.Used() != 30 {
		t.Errorf("parent used %d after release, want 30", k.Used())
	}
	if got := k.Largest(); got != c {
		t.Errorf("largest = %p, want c", got)
	}
}

func TestCloseReturnsEverythingOnce(t *testing.T) {
	k := New("kernel memory", 1000, nil)
	s := New("session memory", 500, k)
	s.Charge(300)
	s.Close()
	if k.Used() != 0 {
		t.Fatalf("kernel still holds %d after close", k.Used())
	}
	if len(k.Children()) != 0 {
		t.Error("closed budget still listed under its parent")
	}
	s.Release(300) // the late cleanup of a value charged before close
	if k.Used() != 0 || s.Used() != 0 {
		t.Errorf("late release: kernel %d, session %d; want 0, 0", k.Used(), s.Used())
	}
	if err := s.Charge(1); err == nil {
		t.Error("charge to a closed budget succeeded")
	}
	s.Close()
	if !s.Closed() {
		t.Error("Closed() is false")
	}
	if late := New("session memory", 10, s); !late.Closed() {
		t.Error("a budget under a closed one is open")
	}
}

func TestCloseClosesChildren(t *testing.T) {
	k := New("kernel memory", 0, nil)
	s := New("session memory", 0, k)
	task := New("task memory", 0, s)
	task.Charge(10)
	s.Close()
	if !task.Closed() || k.Used() != 0 {
		t.Errorf("child closed %v, kernel used %d", task.Closed(), k.Used())
	}
}

func TestReclaimRunsOnceThenRetries(t *testing.T) {
	var b *Budget
	calls := 0
	b = New("session memory", 100, nil).WithReclaim(func() {
		calls++
		b.Release(50)
	})
	b.Charge(100)
	if err := b.Charge(40); err != nil {
		t.Fatalf("charge after a reclaim that freed room: %v", err)
	}
	if calls != 1 {
		t.Errorf("reclaim called %d times, want 1", calls)
	}
	if err := b.Charge(100); err == nil {
		t.Error("charge that no reclaim can fit succeeded")
	}
	if calls != 2 {
		t.Errorf("reclaim called %d times, want 2", calls)
	}
	child := New("child", 0, b)
	if child.reclaim == nil {
		t.Error("child did not inherit reclaim")
	}
}

func TestCancelReachesRegisteredAndChildren(t *testing.T) {
	k := New("kernel memory", 0, nil)
	s := New("session memory", 0, k)
	cause := errors.New("memory")
	var got []error
	var mu sync.Mutex
	record := func(err error) { mu.Lock(); got = append(got, err); mu.Unlock() }
	s.OnCancel(record)
	unreg := s.OnCancel(record)
	unreg()
	k.OnCancel(record)
	if n := k.Cancel(cause); n != 2 {
		t.Errorf("Cancel called %d functions, want 2", n)
	}
	if len(got) != 2 || got[0] != cause || got[1] != cause {
		t.Errorf("causes %v", got)
	}
}

// TestConcurrentChargesNeverPassTheLimit hammers two sessions under one
// kernel budget from many goroutines (run it with -race): no budget ever
// holds more than its limit, and everything released returns usage to 0.
func TestConcurrentChargesNeverPassTheLimit(t *testing.T) {
	k := New("kernel memory", 10_000, nil)
	ss := []*Budget{New("session memory", 6_000, k), New("session memory", 6_000, k)}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			s := ss[g%2]
			var held []int64
			for range 5000 {
				if len(held) > 0 && r.IntN(2) == 0 {
					s.Release(held[len(held)-1])
					held = held[:len(held)-1]
					continue
				}
				n := int64(1 + r.IntN(500))
				if err := s.Charge(n); err == nil {
					held = append(held, n)
				}
				if u := k.Used(); u > k.Limit() {
					t.Errorf("kernel usage %d past its limit", u)
				}
			}
			for _, n := range held {
				s.Release(n)
			}
		}()
	}
	wg.Wait()
	for _, b := range append(ss, k) {
		if b.Used() != 0 {
			t.Errorf("%s holds %d after everything was released", b.Name(), b.Used())
		}
		if b.Peak() > b.Limit() {
			t.Errorf("%s peaked at %d, past its limit %d", b.Name(), b.Peak(), b.Limit())
		}
	}
}

// TestConcurrentCloseAndRelease closes a session while its values are
// still being released: the kernel ends at exactly zero.
func TestConcurrentCloseAndRelease(t *testing.T) {
	for range 200 {
		k := New("kernel memory", 0, nil)
		s := New("session memory", 0, k)
		for range 100 {
			s.Charge(10)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 25 {
					s.Release(10)
				}
			}()
		}
		wg.Add(1)
		go func() { defer wg.Done(); s.Close() }()
		wg.Wait()
		if k.Used() != 0 || s.Used() != 0 {
			t.Fatalf("after close and releases: kernel %d, session %d", k.Used(), s.Used())
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1024, "1 KiB"}, {1536, "1.5 KiB"}, {64 << 20, "64 MiB"}, {2 << 30, "2 GiB"}, {3 << 39, "1.5 TiB"}} {
		if got := FormatBytes(c.n); got != c.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
