package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestLifecycleStates(t *testing.T) {
	noLeaks(t)
	boom := errors.New("boom")
	tests := []struct {
		name    string
		work    Work
		state   State
		wantErr error
		value   any
	}{
		{"completed", func(context.Context) (any, error) { return 42, nil }, Completed, nil, 42},
		{"failed", func(context.Context) (any, error) { return nil, boom }, Failed, boom, nil},
		{"panic", func(context.Context) (any, error) { panic("oops") }, Failed, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			var rec recorder
			r.OnChange(rec.hook)
			task := mustStart(t, r, alice, tc.work)
			waitDone(t, task)
			got, err := r.Get(alice, task.ID())
			if err != nil {
				t.Fatal(err)
			}
			if got.State != tc.state {
				t.Errorf("state = %s, want %s", got.State, tc.state)
			}
			if tc.wantErr != nil && !errors.Is(got.Err, tc.wantErr) {
				t.Errorf("err = %v, want %v", got.Err, tc.wantErr)
			}
			if tc.name == "panic" {
				var pe *PanicError
				if !errors.As(got.Err, &pe) || pe.Value != "oops" {
					t.Errorf("err = %v, want PanicError(oops)", got.Err)
				}
			}
			if got.FinishedNs < got.StartedNs || got.StartedNs == 0 {
				t.Errorf("times: started %d finished %d", got.StartedNs, got.FinishedNs)
			}
			v, ok, werr := task.Result()
			if !ok || v != tc.value || (tc.state == Completed) != (werr == nil) {
				t.Errorf("Result = %v, %v, %v", v, ok, werr)
			}
			want := []string{"running", string(tc.state)}
			if s := rec.states(task.ID()); !slices.Equal(s, want) {
				t.Errorf("notifications = %v, want %v", s, want)
			}
		})
	}
}

func TestResultNotReadyWhileRunning(t *testing.T) {
	r := New()
	g := newGate()
	task := mustStart(t, r, alice, g.work("x"))
	if _, ok, _ := task.Result(); ok {
		t.Error("Result ok while running")
	}
	if rec := task.Record(); rec.State != Running || rec.FinishedNs != 0 {
		t.Errorf("record = %+v", rec)
	}
	close(g.release)
	waitDone(t, task)
	if v, ok, err := task.Result(); !ok || v != "x" || err != nil {
		t.Errorf("Result = %v %v %v", v, ok, err)
	}
}

func TestOnFinishSetsResultRef(t *testing.T) {
	r := New()
	r.OnFinish(func(task *Task, v any, err error) string {
		if err != nil {
			return "out:err"
		}
		return "out:" + v.(string)
	})
	var rec recorder
	r.OnChange(rec.hook)
	task := mustStart(t, r, alice, func(context.Context) (any, error) { return "12", nil })
	waitDone(t, task)
	if got := task.Record().ResultRef; got != "out:12" {
		t.Errorf("ResultRef = %q", got)
	}
	// The terminal notification already carries the ref.
	rec.mu.Lock()
	last := rec.recs[len(rec.recs)-1]
	rec.mu.Unlock()
	if last.ResultRef != "out:12" || last.State != Completed {
		t.Errorf("last notification = %+v", last)
	}
}

func TestPanickingHooksDoNotWedge(t *testing.T) {
	noLeaks(t)
	r := New()
	r.OnFinish(func(*Task, any, error) string { panic("finish") })
	r.OnChange(func(Record) { panic("change") })
	task := mustStart(t, r, alice, func(context.Context) (any, error) { return 1, nil })
	waitDone(t, task)
	if s := task.Record().State; s != Completed {
		t.Errorf("state = %s", s)
	}
}

func TestIDsIncreaseAndAreNeverReused(t *testing.T) {
	r := New(WithLimits(2, 1))
	seen := map[string]bool{}
	prev := uint64(0)
	for i := 0; i < 20; i++ {
		o := []Owner{alice, bob, aliceMisc}[i%3]
		task := mustStart(t, r, o, func(context.Context) (any, error) { return nil, nil })
		waitDone(t, task)
		id := task.ID()
		if seen[id] {
			t.Fatalf("id %s reused", id)
		}
		seen[id] = true
		n, ok := parseID(id)
		if !ok || n <= prev {
			t.Fatalf("id %s after %d", id, prev)
		}
		prev = n
	}
	if prev != 20 {
		t.Errorf("last id %d, want 20", prev)
	}
}

func TestParseID(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"task:1", 1, true},
		{"task:907", 907, true},
		{"task:0", 0, false},
		{"task:07", 0, false},
		{"task:", 0, false},
		{"task:+1", 0, false},
		{"task:-1", 0, false},
		{"task:1x", 0, false},
		{"Task:1", 0, false},
		{"7", 0, false},
		{"task:99999999999999999999999", 0, false},
	}
	for _, tc := range tests {
		n, ok := parseID(tc.in)
		if n != tc.want || ok != tc.ok {
			t.Errorf("parseID(%q) = %d, %v; want %d, %v", tc.in, n, ok, tc.want, tc.ok)
		}
	}
}

func TestRecordJSON(t *testing.T) {
	tests := []struct {
		name string
		rec  Record
		want string
	}{
		{
			"running",
			Record{Task: "task:7", Session: "work", State: Running, StartedNs: 1750000000000000000, Label: "sleep 1"},
			`{"task":"task:7","session":"work","state":"running","started_ns":1750000000000000000,"finished_ns":null,"result_ref":null,"error":null}`,
		},
		{
			"completed",
			Record{Task: "task:7", Session: "work", State: Completed, StartedNs: 1, FinishedNs: 2, ResultRef: "out:12"},
			`{"task":"task:7","session":"work","state":"completed","started_ns":1,"finished_ns":2,"result_ref":"out:12","error":null}`,
		},
		{
			"cancelled",
			Record{Task: "task:3", Session: "s", State: Cancelled, StartedNs: 1, FinishedNs: 2, Err: ErrCancelled},
			`{"task":"task:3","session":"s","state":"cancelled","started_ns":1,"finished_ns":2,"result_ref":null,"error":"task cancelled"}`,
		},
		{
			"timed out and suspended",
			Record{Task: "task:3", Session: "s", State: Running, StartedNs: 1, Suspended: true, TimedOut: true},
			`{"task":"task:3","session":"s","state":"running","started_ns":1,"finished_ns":null,"result_ref":null,"error":null,"suspended":true,"timed_out":true}`,
		},
	}
	for _, tc := range tests {
		got, err := json.Marshal(tc.rec)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
	if ch := (Record{Task: "task:7"}).Channel(); ch != "task.7" {
		t.Errorf("Channel = %q", ch)
	}
}

func TestClockOption(t *testing.T) {
	at := time.Date(2026, 7, 16, 9, 30, 0, 0, time.UTC)
	r := New(WithClock(func() time.Time { return at }))
	task := mustStart(t, r, alice, func(context.Context) (any, error) { return nil, nil })
	waitDone(t, task)
	rec := task.Record()
	if rec.StartedNs != at.UnixNano() || rec.FinishedNs != at.UnixNano() {
		t.Errorf("times = %d, %d", rec.StartedNs, rec.FinishedNs)
	}
}

func TestStartNilWork(t *testing.T) {
	if _, err := New().Start(alice, "x", nil); err == nil {
		t.Error("nil work accepted")
	}
}
