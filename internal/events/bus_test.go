package events

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

func TestSeqPerChannelAndScope(t *testing.T) {
	b := New()
	steps := []struct {
		scope   Scope
		channel string
		want    uint64
	}{
		{alice, "user.a", 1},
		{alice, "user.a", 2},
		{alice, "user.b", 1},
		{bob, "user.a", 1},
		{alice, "task.1", 1},
		{Scope{"alice", "other"}, "user.a", 1},
		{alice, "user.a", 3},
		{bob, "journal", 1}, // global: one sequence for everyone
		{alice, "journal", 2},
	}
	for i, st := range steps {
		ev := published(t)(b.Publish(st.scope, st.channel, num(i)))
		if ev.Seq != st.want || ev.Channel != st.channel || string(ev.Payload) != strconv.Itoa(i) {
			t.Errorf("step %d: Publish(%v, %q) = %+v, want seq %d", i, st.scope, st.channel, ev, st.want)
		}
		if ev.TS <= 0 {
			t.Errorf("step %d: ts %d not set", i, ev.TS)
		}
	}
	if got := b.LatestSeq(alice, "user.a"); got != 3 {
		t.Errorf("LatestSeq(alice, user.a) = %d, want 3", got)
	}
	if got := b.LatestSeq(alice, "user.none"); got != 0 {
		t.Errorf("LatestSeq of unknown channel = %d, want 0", got)
	}
}

func TestNilPayloadIsNull(t *testing.T) {
	b := New()
	ev := published(t)(b.Publish(alice, "user.x", nil))
	if string(ev.Payload) != "null" {
		t.Fatalf("payload = %q, want null", ev.Payload)
	}
	out, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"channel":"user.x","seq":1,"ts":%d,"payload":null}`, ev.TS)
	if string(out) != want {
		t.Errorf("wire shape %s, want %s", out, want)
	}
}

func TestClock(t *testing.T) {
	b := New(WithClock(func() int64 { return 42 }))
	if ev := published(t)(b.Publish(alice, "render", nil)); ev.TS != 42 {
		t.Errorf("ts = %d, want 42", ev.TS)
	}
}

func TestReadSinceLimit(t *testing.T) {
	const total = 2000
	b := New()
	for i := 1; i <= total; i++ {
		b.Publish(alice, "user.log", num(i))
	}
	oldest := uint64(total - RingSize + 1) // 977
	tests := []struct {
		since    uint64
		limit    int
		from, to uint64 // expected seqs; from > to means none
	}{
		{0, 0, oldest, total},
		{0, -1, oldest, total},
		{0, 5000, oldest, total},
		{0, MaxReadLimit, oldest, total},
		{0, 10, total - 9, total},
		{1995, 100, 1996, total},
		{1990, 3, 1998, total},
		{1999, 1, total, total},
		{total, 10, 1, 0},
		{total + 50, 10, 1, 0},
		{500, 0, oldest, total}, // cursor older than the ring: retained tail
		{oldest, 0, oldest + 1, total},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("since=%d,limit=%d", tt.since, tt.limit), func(t *testing.T) {
			got := b.Read(alice, "user.log", tt.since, tt.limit)
			want := []uint64{}
			if tt.from <= tt.to {
				want = seqRange(tt.from, tt.to)
			}
			if !slices.Equal(seqs(got), want) {
				t.Fatalf("seqs = %v…, want %d..%d", head(seqs(got)), tt.from, tt.to)
			}
			for _, ev := range got {
				if string(ev.Payload) != strconv.FormatUint(ev.Seq, 10) {
					t.Fatalf("seq %d carries payload %s", ev.Seq, ev.Payload)
				}
			}
		})
	}
}

func head(s []uint64) []uint64 { return s[:min(len(s), 5)] }

func TestRingEviction(t *testing.T) {
	b := New()
	for n := 1; n <= RingSize+3; n++ {
		b.Publish(alice, "task.1", num(n))
		got := b.Read(alice, "task.1", 0, 0)
		first := uint64(1)
		if n > RingSize {
			first = uint64(n - RingSize + 1)
		}
		if len(got) != min(n, RingSize) || got[0].Seq != first || got[len(got)-1].Seq != uint64(n) {
			t.Fatalf("after %d publishes: %d events %d..%d, want first %d", n, len(got), got[0].Seq, got[len(got)-1].Seq, first)
		}
	}
}

func TestUnknownChannelReadsEmpty(t *testing.T) {
	b := New()
	for _, ch := range []string{"user.none", "task.99", "journal", "approval", "no such thing", ""} {
		got := b.Read(alice, ch, 0, 10)
		if got == nil || len(got) != 0 {
			t.Errorf("Read(%q) = %#v, want empty non-nil", ch, got)
		}
		if out, _ := json.Marshal(got); string(out) != "[]" {
			t.Errorf("Read(%q) encodes as %s", ch, out)
		}
	}
}

func TestScopeIsolation(t *testing.T) {
	b := New()
	scopes := []Scope{alice, bob, {"alice", "s2"}, {"bob", "s2"}}
	channels := []string{"user.x", ChannelTranscript, ChannelRender, "task.1"}
	for i, sc := range scopes {
		for _, ch := range channels {
			for k := 0; k <= i; k++ { // scope i publishes i+1 events
				b.Publish(sc, ch, json.RawMessage(strconv.Quote(sc.Principal+"/"+sc.Session)))
			}
		}
	}
	for i, sc := range scopes {
		for _, ch := range channels {
			got := b.Read(sc, ch, 0, 0)
			if !slices.Equal(seqs(got), seqRange(1, uint64(i+1))) {
				t.Errorf("%v %s: seqs %v, want 1..%d", sc, ch, seqs(got), i+1)
			}
			for _, ev := range got {
				if want := strconv.Quote(sc.Principal + "/" + sc.Session); string(ev.Payload) != want {
					t.Errorf("%v %s: saw %s", sc, ch, ev.Payload)
				}
			}
		}
	}
}

func TestApprovalAudience(t *testing.T) {
	b := New()
	owner := Scope{"alice", "work"}
	b.PublishTo(owner, ChannelApproval, Audience{Scopes: []Scope{owner}, Principals: []string{"bob"}},
		json.RawMessage(`{"plan_ref":"plan:1","state":"pending"}`))
	b.Publish(owner, ChannelApproval, json.RawMessage(`{"plan_ref":"plan:2","state":"pending"}`)) // owner only
	b.PublishTo(bob, ChannelApproval, Audience{Principals: []string{"carol"}}, json.RawMessage(`{"plan_ref":"plan:3"}`))

	tests := []struct {
		viewer Scope
		want   []uint64
	}{
		{owner, []uint64{1, 2}},
		{Scope{"bob", "default"}, []uint64{1}},
		{Scope{"bob", "elsewhere"}, []uint64{1}},
		{Scope{"alice", "default"}, []uint64{}}, // same principal, other session
		{Scope{"carol", "x"}, []uint64{3}},
		{Scope{"mallory", "work"}, []uint64{}},
	}
	for _, tt := range tests {
		if got := seqs(b.Read(tt.viewer, ChannelApproval, 0, 0)); !slices.Equal(got, tt.want) {
			t.Errorf("viewer %v sees %v, want %v", tt.viewer, got, tt.want)
		}
	}

	// Live subscriptions see only what their audience rule admits.
	recs := map[Scope]*recorder{}
	for _, tt := range tests {
		r := newRecorder()
		recs[tt.viewer] = r
		sub, err := b.Subscribe(tt.viewer, ChannelApproval, ptr(0), r.sink)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
	}
	ev := published(t)(b.PublishTo(owner, ChannelApproval, Audience{Scopes: []Scope{owner}, Principals: []string{"carol"}}, nil))
	for _, tt := range tests {
		want := tt.want
		if tt.viewer == owner || tt.viewer.Principal == "carol" {
			want = append(slices.Clone(want), ev.Seq)
		}
		r := recs[tt.viewer]
		if len(want) > 0 {
			r.waitFor(t, "approval events", lastSeq(want[len(want)-1]))
		}
		time.Sleep(time.Millisecond)
		if got := seqs(r.events()); !slices.Equal(got, want) {
			t.Errorf("subscriber %v got %v, want %v", tt.viewer, got, want)
		}
	}
}

func TestJournalFilter(t *testing.T) {
	b := New()
	err := b.SetFilter(ChannelJournal, func(viewer Scope, ev Event) bool {
		var row struct{ Principal string }
		if json.Unmarshal(ev.Payload, &row) != nil {
			return false
		}
		return viewer.Principal == "root" || viewer.Principal == row.Principal
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetFilter("user.x", nil); err == nil {
		t.Error("SetFilter on a scoped channel succeeded")
	}
	for _, p := range []string{"alice", "bob", "alice", "carol", "alice"} {
		b.Publish(Scope{p, "s"}, ChannelJournal, json.RawMessage(`{"principal":"`+p+`"}`))
	}
	tests := []struct {
		viewer Scope
		since  uint64
		limit  int
		want   []uint64
	}{
		{alice, 0, 0, []uint64{1, 3, 5}},
		{Scope{"alice", "other"}, 0, 0, []uint64{1, 3, 5}},
		{bob, 0, 0, []uint64{2}},
		{alice, 1, 0, []uint64{3, 5}},
		{alice, 0, 2, []uint64{3, 5}}, // newest visible tail
		{Scope{"root", ""}, 0, 0, []uint64{1, 2, 3, 4, 5}},
		{Scope{"dave", ""}, 0, 0, []uint64{}},
	}
	for _, tt := range tests {
		got := seqs(b.Read(tt.viewer, ChannelJournal, tt.since, tt.limit))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%v since %d limit %d: %v, want %v", tt.viewer, tt.since, tt.limit, got, tt.want)
		}
	}

	// Subscriptions apply the same filter to replay and live events.
	r := newRecorder()
	zero := uint64(0)
	sub, err := b.Subscribe(bob, ChannelJournal, &zero, r.sink)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	b.Publish(alice, ChannelJournal, json.RawMessage(`{"principal":"alice"}`))
	b.Publish(bob, ChannelJournal, json.RawMessage(`{"principal":"bob"}`))
	got := r.waitFor(t, "seq 7", lastSeq(7))
	if !slices.Equal(seqs(got), []uint64{2, 7}) {
		t.Errorf("bob's subscription got %v, want [2 7]", seqs(got))
	}
}

func TestOnPublishAndInject(t *testing.T) {
	b := New()
	var mu sync.Mutex
	var seen []string
	remove := b.OnPublish(func(sc Scope, ev Event) {
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s/%s %s#%d", sc.Principal, sc.Session, ev.Channel, ev.Seq))
		mu.Unlock()
	})
	b.Publish(alice, "user.a", nil)
	b.Inject(alice, "user.a", nil) // from the language bus: no echo
	b.PublishTo(bob, ChannelApproval, Audience{}, nil)
	remove()
	b.Publish(alice, "user.a", nil)
	remove() // idempotent

	want := []string{"alice/default user.a#1", "bob/default approval#1"}
	if !slices.Equal(seen, want) {
		t.Errorf("observed %v, want %v", seen, want)
	}
	if got := b.LatestSeq(alice, "user.a"); got != 3 {
		t.Errorf("Inject did not publish: latest seq %d, want 3", got)
	}
}

func TestChannelsPerScopeBound(t *testing.T) {
	b := New()
	keep, err := b.Subscribe(alice, "user.c0", nil, newRecorder().sink)
	if err != nil {
		t.Fatal(err)
	}
	defer keep.Close()
	for i := range DefaultLimits().ScopeChannels {
		b.Publish(alice, "user.c"+strconv.Itoa(i), nil)
	}
	b.Publish(alice, "user.c1", nil) // c1 is now recent; c2 is the idle LRU
	b.Publish(alice, "user.extra", nil)

	if got := b.LatestSeq(alice, "user.c2"); got != 0 {
		t.Errorf("LRU idle channel kept: seq %d", got)
	}
	for _, ch := range []string{"user.c0", "user.c1", "user.c3", "user.extra"} {
		if b.LatestSeq(alice, ch) == 0 {
			t.Errorf("channel %s was evicted", ch)
		}
	}
	if got := b.LatestSeq(bob, "user.c2"); got != 0 {
		t.Errorf("other scope affected: %d", got)
	}
}

func TestForgetScope(t *testing.T) {
	b := New()
	r := newRecorder()
	sub, err := b.Subscribe(alice, "user.live", nil, r.sink)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	b.Publish(alice, "user.idle", nil)
	b.Publish(alice, "user.live", nil)
	b.Publish(bob, "user.idle", nil)
	b.ForgetScope(alice)
	if got := b.Read(alice, "user.idle", 0, 0); len(got) != 0 {
		t.Errorf("forgotten channel still reads %v", seqs(got))
	}
	if ev := published(t)(b.Publish(alice, "user.idle", nil)); ev.Seq != 1 {
		t.Errorf("forgotten channel restarted at %d, want 1", ev.Seq)
	}
	if ev := published(t)(b.Publish(alice, "user.live", nil)); ev.Seq != 2 {
		t.Errorf("subscribed channel seq %d, want 2", ev.Seq)
	}
	r.waitFor(t, "live seq 2", lastSeq(2))
	if got := b.LatestSeq(bob, "user.idle"); got != 1 {
		t.Errorf("other scope lost its channel")
	}
}

func TestConcurrentPublishRead(t *testing.T) {
	b := New()
	const writers, each = 8, 500
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := Scope{"p", strconv.Itoa(w % 2)}
			for i := range each {
				b.Publish(sc, "user.shared", num(i))
				if i%50 == 0 {
					got := b.Read(sc, "user.shared", 0, 100)
					for k := 1; k < len(got); k++ {
						if got[k].Seq != got[k-1].Seq+1 {
							t.Errorf("non-contiguous read %d after %d", got[k].Seq, got[k-1].Seq)
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	for s := range 2 {
		if got := b.LatestSeq(Scope{"p", strconv.Itoa(s)}, "user.shared"); got != writers/2*each {
			t.Errorf("scope %d: latest seq %d, want %d", s, got, writers/2*each)
		}
	}
}

func TestSeed(t *testing.T) {
	b := New()
	b.Seed(alice, ChannelTranscript, 80)
	b.Seed(alice, ChannelTranscript, 10) // lower: ignored
	b.Seed(Scope{}, ChannelJournal, 500)
	tests := []struct {
		scope   Scope
		channel string
		want    uint64
	}{
		{alice, ChannelTranscript, 81},
		{alice, ChannelTranscript, 82},
		{bob, ChannelTranscript, 1},
		{bob, ChannelJournal, 501},
	}
	for _, tt := range tests {
		if ev := published(t)(b.Publish(tt.scope, tt.channel, nil)); ev.Seq != tt.want {
			t.Errorf("%v %s: seq %d, want %d", tt.scope, tt.channel, ev.Seq, tt.want)
		}
	}
	if got := seqs(b.Read(alice, ChannelTranscript, 0, 0)); !slices.Equal(got, []uint64{81, 82}) {
		t.Errorf("read after seed: %v", got)
	}
	if got := seqs(b.Read(alice, ChannelTranscript, 81, 0)); !slices.Equal(got, []uint64{82}) {
		t.Errorf("read since 81: %v", got)
	}
}
