package budget

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestGrowWithinLimit(t *testing.T) {
	p := NewPool("test", 100)
	a := p.Holder(nil)
	if err := a.Grow(60); err != nil {
		t.Fatal(err)
	}
	if err := a.Grow(40); err != nil {
		t.Fatal(err)
	}
	if p.Used() != 100 || a.Held() != 100 {
		t.Fatalf("used %d held %d", p.Used(), a.Held())
	}
	err := a.Grow(1)
	var qe *ExceededError
	if !errors.As(err, &qe) || !errors.Is(err, ErrExceeded) || qe.Name != "test" || qe.Limit != 100 || qe.Used != 100 || qe.Want != 1 {
		t.Fatalf("grow past a full pool: %v", err)
	}
	if p.Used() != 100 {
		t.Fatalf("a refused grow charged: used %d", p.Used())
	}
	a.Shrink(30)
	if p.Used() != 70 || a.Held() != 70 {
		t.Fatalf("after shrink used %d held %d", p.Used(), a.Held())
	}
	a.Shrink(1000) // more than held: clamps
	if p.Used() != 0 || p.Holders() != 0 {
		t.Fatalf("after over-shrink used %d holders %d", p.Used(), p.Holders())
	}
}

// TestFairShare: when the pool is full, the holder within its share
// evicts the largest holders; the one past its share is refused.
func TestFairShare(t *testing.T) {
	tests := []struct {
		name       string
		held       []int64 // existing holders (all evictable)
		have, grow int64   // the requester
		wantErr    bool
		wantEvict  []int // indexes into held
	}{
		{"newcomer evicts the hog", []int64{90}, 0, 20, false, []int{0}},
		{"hog past share refused", []int64{10}, 90, 10, true, nil},
		{"largest first, only as many as needed", []int64{50, 30, 20}, 0, 25, false, []int{0}},
		{"the largest alone frees enough", []int64{40, 35, 25}, 0, 25, false, []int{0}},
		// A victim is larger than the requester's growth, which is at
		// least what the pool lacks: one victim is always enough.
		{"one victim is enough, the largest", []int64{46, 44, 5, 5}, 0, 20, false, []int{0}},
		{"equal holders refuse", []int64{50, 50}, 0, 40, true, nil},
		{"only a holder larger than the requester is evicted", []int64{25, 25, 30}, 20, 5, false, []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPool("buf", 100)
			var evicted sync.Map
			var wg sync.WaitGroup
			hs := make([]*Holder, len(tt.held))
			for i, n := range tt.held {
				i := i
				wg.Add(1)
				hs[i] = p.Holder(func() { evicted.Store(i, true); wg.Done() })
				if err := hs[i].Grow(n); err != nil {
					t.Fatal(err)
				}
			}
			req := p.Holder(func() { t.Error("requester evicted") })
			if err := req.Grow(tt.have); tt.have > 0 && err != nil {
				t.Fatalf("setup grow: %v", err)
			}
			err := req.Grow(tt.grow)
			if (err != nil) != tt.wantErr {
				t.Fatalf("grow: %v, want error %v", err, tt.wantErr)
			}
			// Release the waits of holders that were not evicted.
			for i := range hs {
				want := false
				for _, j := range tt.wantEvict {
					want = want || j == i
				}
				if want {
					if !hs[i].Evicted() || hs[i].Held() != 0 {
						t.Errorf("holder %d not evicted", i)
					}
				} else {
					if hs[i].Evicted() {
						t.Errorf("holder %d evicted", i)
					}
					wg.Done()
				}
			}
			wg.Wait() // every evict callback ran
			if p.Used() > p.Limit() {
				t.Errorf("used %d over limit", p.Used())
			}
			for _, i := range tt.wantEvict {
				if err := hs[i].Grow(1); !errors.Is(err, ErrEvicted) {
					t.Errorf("grow on evicted holder: %v", err)
				}
			}
		})
	}
}

func TestUnevictableHolderIsOnlyRefused(t *testing.T) {
	p := NewPool("x", 100)
	big := p.Holder(nil)
	if err := big.Grow(100); err != nil {
		t.Fatal(err)
	}
	small := p.Holder(func() {})
	if err := small.Grow(10); !errors.Is(err, ErrExceeded) {
		t.Fatalf("got %v", err)
	}
	if big.Evicted() {
		t.Fatal("holder without evict callback was evicted")
	}
}

func TestReleaseRetires(t *testing.T) {
	p := NewPool("x", 100)
	h := p.Holder(func() { t.Error("evict called on release") })
	if err := h.Grow(70); err != nil {
		t.Fatal(err)
	}
	h.Release()
	h.Release()
	h.Shrink(10)
	if p.Used() != 0 {
		t.Fatalf("used %d after release", p.Used())
	}
	if err := h.Grow(1); !errors.Is(err, ErrEvicted) {
		t.Fatalf("grow after release: %v", err)
	}
}

// TestConcurrentNeverOverLimit races growers and shrinkers, some of which
// get evicted, and checks the accounting stays within the limit and ends
// at zero.
func TestConcurrentNeverOverLimit(t *testing.T) {
	const limit = 1 << 20
	p := NewPool("race", limit)
	var over atomic.Bool
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if p.Used() > limit {
				over.Store(true)
			}
			time.Sleep(10 * time.Microsecond)
		}
	}()
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			newHolder := func() (*Holder, *atomic.Bool) {
				var gone atomic.Bool
				return p.Holder(func() { gone.Store(true) }), &gone
			}
			h, gone := newHolder()
			defer func() { h.Release() }()
			for i := range 2000 {
				n := int64(1+(g*7919+i*104729)%65536) * int64(1+g%4)
				if h.Grow(n) == nil {
					if i%3 == 0 {
						h.Shrink(n / 2)
					}
				}
				if gone.Load() {
					h, gone = newHolder()
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	if over.Load() {
		t.Fatal("used exceeded the limit")
	}
	if u := p.Used(); u != 0 {
		t.Fatalf("used %d after every holder released", u)
	}
}
