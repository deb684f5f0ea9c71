package kernel_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/kernel"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/proto"
)

// replayPolicy: agent:worker reads its own journal rows; agent:auditor
// may read the whole journal (but its token below carries no
// journal.read cap); agent:mute none.
const replayPolicy = `
[principal."agent:worker"]
journal_read = true

[principal."agent:auditor"]
journal_read = true
journal_read_all = true

[principal."agent:mute"]
`

// replayKernel starts a kernel keeping its journal in state, with
// replayPolicy and, when channelBytes > 0, that event-channel-memory, so
// that the rings keep only a few events.
func replayKernel(t *testing.T, sock, dir, store, state string, channelBytes int64) *e2eKernel {
	t.Helper()
	pol, err := policy.Parse([]byte(replayPolicy), filepath.Dir(dir))
	if err != nil {
		t.Fatalf("policy: %v", err)
	}
	cfg := kernel.Config{Version: "e2e", TokenStore: store, Dir: dir,
		Env: []string{"HOME=" + filepath.Dir(dir), "PATH=/usr/bin:/bin"}, Policy: pol, StateDir: state}
	if channelBytes > 0 {
		lim := kernel.DefaultLimits()
		lim.EventChannelMemory = channelBytes
		cfg.Limits = &lim
	}
	return serveConfigE2E(t, sock, dir, store, cfg)
}

// readAll reads channel since since.
func readAll(t *testing.T, c *client.Client, channel string, since uint64) []client.Event {
	t.Helper()
	evs, err := c.EventsRead(testCtx(t), channel, since, 1024)
	if err != nil {
		t.Fatalf("events.read %s: %v", channel, err)
	}
	return evs
}

// collect receives n events from s.
func collect(t *testing.T, s *client.Subscription, n int) []client.Event {
	t.Helper()
	out := make([]client.Event, 0, n)
	for len(out) < n {
		ev := next(t, s, 10*time.Second)
		if ev.Dropped != 0 {
			t.Fatalf("subscription %s dropped %d events after %d", s.Channel(), ev.Dropped, len(out))
		}
		out = append(out, ev)
	}
	return out
}

// quiet checks that s delivers nothing more for a moment.
func quiet(t *testing.T, s *client.Subscription) {
	t.Helper()
	select {
	case ev := <-s.Events():
		t.Errorf("unexpected event on %s: seq %d %s", s.Channel(), ev.Seq, ev.Payload)
	case <-time.After(50 * time.Millisecond):
	}
}

// sameEvents checks that got is want, event for event: seq, ts and the
// payload's bytes.
func sameEvents(t *testing.T, what string, got, want []client.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events (%v), want %d (%v)", what, len(got), evSeqs(got), len(want), evSeqs(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Channel != w.Channel || g.Seq != w.Seq || g.TS != w.TS || string(g.Payload) != string(w.Payload) {
			t.Fatalf("%s: event %d\n got %s %d %d %s\nwant %s %d %d %s", what, i, g.Channel, g.Seq, g.TS, g.Payload, w.Channel, w.Seq, w.TS, w.Payload)
		}
	}
}

func evSeqs(evs []client.Event) []uint64 {
	out := make([]uint64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Seq
	}
	return out
}

// consecutive checks that evs are numbered from..from+len-1.
func consecutive(t *testing.T, what string, evs []client.Event, from uint64) {
	t.Helper()
	for i, ev := range evs {
		if ev.Seq != from+uint64(i) {
			t.Fatalf("%s: seqs %v, want consecutive from %d", what, evSeqs(evs), from)
		}
	}
}

// ownNumbered is a journal event as a reader of only its principal's rows
// sees it: numbered n by seq and by the id its payload starts with.
func ownNumbered(t *testing.T, ev client.Event, n int) client.Event {
	t.Helper()
	var e struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(ev.Payload, &e); err != nil {
		t.Fatalf("journal event %s: %v", ev.Payload, err)
	}
	head := fmt.Sprintf(`{"id":%d,`, e.ID)
	if !strings.HasPrefix(string(ev.Payload), head) {
		t.Fatalf("journal event %s does not start with its id", ev.Payload)
	}
	ev.Seq = uint64(n)
	ev.Payload = json.RawMessage(fmt.Sprintf(`{"id":%d,`, n) + string(ev.Payload[len(head):]))
	return ev
}

func principalOf(t *testing.T, ev client.Event) string {
	t.Helper()
	var e struct {
		Principal string `json:"principal"`
	}
	if err := json.Unmarshal(ev.Payload, &e); err != nil {
		t.Fatalf("journal event %s: %v", ev.Payload, err)
	}
	return e.Principal
}

// A restart keeps the journal and session.transcript channels: read and
// subscribe from since 0 give the same events, seq, ts and payload bytes
// alike, as the first kernel published live; new events continue above
// them; out:N of the first kernel is still readable, and refs continue
// above it.
func TestE2EReplayAcrossRestart(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	state := filepath.Join(filepath.Dir(dir), "state")
	k := replayKernel(t, sock, dir, store, state, 0)
	ctx := testCtx(t)
	owner := k.attached(t, "main", "")
	workerTok := k.token(t, "agent:worker")
	worker := k.attached(t, "main", workerTok) // same session name, another principal
	jsub, err := owner.Subscribe(ctx, "journal", 0)
	if err != nil {
		t.Fatal(err)
	}
	tsub, err := owner.Subscribe(ctx, "session.transcript", 0)
	if err != nil {
		t.Fatal(err)
	}
	long := `"` + strings.Repeat("é", 3000) + `"` // cut in the events
	// ls . has effects: its row is begun before it runs and finished after.
	for _, src := range []string{"1 + 1", "1 / 0", long, "(0..1000).map(x => x * 2)", `{a: 1, b: [true, "x"]}`, "ls ."} {
		err := owner.Call(ctx, "exec", map[string]any{"src": src}, nil)
		if err != nil && src != "1 / 0" {
			t.Fatalf("exec %s: %v", src, err)
		}
	}
	wantCode(t, "parse error", owner.Call(ctx, "exec", map[string]any{"src": "1 +"}, nil), proto.CodeParseError)
	// A failed command: status, stderr and a raised error code.
	failing := `^sh -c 'echo oops >&2; exit 3'`
	wantCode(t, "failing command", owner.Call(ctx, "exec", map[string]any{"src": failing}, nil), proto.CodeRaised)
	if _, err := worker.Exec(ctx, client.ExecParams{Src: "40 + 2"}); err != nil {
		t.Fatal(err)
	}
	liveJ := collect(t, jsub, 8)
	liveT := collect(t, tsub, 7)
	if p := string(liveJ[6].Payload); !strings.Contains(p, `"status":3`) || !strings.Contains(p, `"kind":"stderr"`) {
		t.Errorf("journal event of the failing command: %s", p)
	}
	if !strings.Contains(string(liveJ[5].Payload), `"kind":"fs_read"`) {
		t.Errorf("journal event of ls . without its effects: %s", liveJ[5].Payload)
	}
	consecutive(t, "live journal", liveJ, 1)
	consecutive(t, "live transcript", liveT, 1)
	quiet(t, tsub) // the worker's run is in its own transcript
	if !strings.Contains(string(liveT[1].Payload), `"code":"div_by_zero"`) && !strings.Contains(string(liveT[1].Payload), `"ok":false`) {
		t.Errorf("transcript event of 1 / 0: %s", liveT[1].Payload)
	}
	if !strings.Contains(string(liveT[2].Payload), `"src_truncated":true`) {
		t.Errorf("transcript event of the long source: %s", liveT[2].Payload)
	}
	sameEvents(t, "journal read before the restart", readAll(t, owner, "journal", 0), liveJ)
	sameEvents(t, "transcript read before the restart", readAll(t, owner, "session.transcript", 0), liveT)
	var before struct {
		Value json.RawMessage `json:"value"`
	}
	if err := owner.Call(ctx, "value.get", map[string]any{"ref": "out:4", "slice": []int{10, 13}}, &before); err != nil {
		t.Fatal(err)
	}

	k.stop(t)
	k2 := replayKernel(t, sock, dir, store, state, 0)
	owner2 := k2.attached(t, "main", "")
	// Rebuilt from the journal: the very events published live.
	sameEvents(t, "journal read after the restart", readAll(t, owner2, "journal", 0), liveJ)
	sameEvents(t, "transcript read after the restart", readAll(t, owner2, "session.transcript", 0), liveT)
	sameEvents(t, "journal since 3", readAll(t, owner2, "journal", 3), liveJ[3:])
	if evs, err := owner2.EventsRead(ctx, "session.transcript", 0, 2); err != nil {
		t.Fatal(err)
	} else {
		sameEvents(t, "transcript newest 2", evs, liveT[5:])
	}
	jsub2, err := owner2.Subscribe(ctx, "journal", 0)
	if err != nil {
		t.Fatal(err)
	}
	tsub2, err := owner2.Subscribe(ctx, "session.transcript", 2)
	if err != nil {
		t.Fatal(err)
	}
	sameEvents(t, "journal subscription after the restart", collect(t, jsub2, 8), liveJ)
	sameEvents(t, "transcript subscription since 2", collect(t, tsub2, 5), liveT[2:])

	// value.get of the first kernel's values: from the journal, with
	// slice and path applied to the whole value the answer had elided.
	var after struct {
		Ref   string          `json:"ref"`
		Value json.RawMessage `json:"value"`
	}
	if err := owner2.Call(ctx, "value.get", map[string]any{"ref": "out:4", "slice": []int{10, 13}}, &after); err != nil || string(after.Value) != string(before.Value) {
		t.Errorf("value.get out:4 slice after the restart = %s, %v; before it was %s", after.Value, err, before.Value)
	}
	if err := owner2.Call(ctx, "value.get", map[string]any{"ref": "out:4", "path": "[999]"}, &after); err != nil || string(after.Value) != `{"$":"int","v":1998}` {
		t.Errorf("value.get out:4 [999] = %s, %v", after.Value, err)
	}
	if err := owner2.Call(ctx, "value.get", map[string]any{"ref": "out:1"}, &after); err != nil || string(after.Value) != `{"$":"int","v":2}` {
		t.Errorf("value.get out:1 = %s, %v", after.Value, err)
	}
	if err := owner2.Call(ctx, "value.get", map[string]any{"ref": "out:5", "path": ".b[1]"}, &after); err != nil || string(after.Value) != `{"$":"str","v":"x"}` {
		t.Errorf("value.get out:5 .b[1] = %s, %v", after.Value, err)
	}
	var raised struct {
		Value json.RawMessage `json:"value"`
	}
	if err := owner2.Call(ctx, "value.get", map[string]any{"ref": "out:2"}, &raised); err != nil || !strings.Contains(string(raised.Value), `"$":"error"`) {
		t.Errorf("value.get of the raised out:2 = %s, %v", raised.Value, err)
	}
	wantCode(t, "a ref no run stored", owner2.Call(ctx, "value.get", map[string]any{"ref": "out:77"}, nil), proto.CodeUnknownRef)
	// Another principal's session of the same name has its own refs.
	worker2 := k2.attached(t, "main", workerTok)
	var w struct {
		Value json.RawMessage `json:"value"`
	}
	if err := worker2.Call(ctx, "value.get", map[string]any{"ref": "out:1"}, &w); err != nil || string(w.Value) != `{"$":"int","v":42}` {
		t.Errorf("worker's out:1 after the restart = %s, %v", w.Value, err)
	}
	wantCode(t, "worker's out:4", worker2.Call(ctx, "value.get", map[string]any{"ref": "out:4"}, nil), proto.CodeUnknownRef)

	// New runs continue above: refs, journal seqs and transcript seqs.
	res, err := owner2.Exec(ctx, client.ExecParams{Src: "7 * 6"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ref != "out:8" {
		t.Errorf("first ref after the restart = %s, want out:8", res.Ref)
	}
	if ev := collect(t, jsub2, 1)[0]; ev.Seq != 9 || !strings.Contains(string(ev.Payload), `"7 * 6"`) {
		t.Errorf("new journal event: seq %d %s", ev.Seq, ev.Payload)
	}
	if ev := collect(t, tsub2, 1)[0]; ev.Seq != 8 || !strings.Contains(string(ev.Payload), `"ref":"out:8"`) {
		t.Errorf("new transcript event: seq %d %s", ev.Seq, ev.Payload)
	}
	quiet(t, jsub2)
	if got := readAll(t, owner2, "journal", 0); len(got) != 9 {
		t.Errorf("journal after one more run: %v", evSeqs(got))
	}
}

// More events than the rings keep: read and subscribe from since 0 get
// every one, in order, without a gap at the seam between the journal's
// part and the ring's, and the subscription goes on live.
func TestE2EReplayPastTheRing(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	// About four journal events, and a dozen transcript events, a ring.
	k := replayKernel(t, sock, dir, store, filepath.Join(filepath.Dir(dir), "state"), 3000)
	ctx := testCtx(t)
	owner := k.attached(t, "main", "")
	const runs = 60
	for i := range runs {
		if _, err := owner.Exec(ctx, client.ExecParams{Src: fmt.Sprintf("%d + 0", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, ch := range []string{"journal", "session.transcript"} {
		evs := readAll(t, owner, ch, 0)
		if len(evs) != runs {
			t.Fatalf("%s: read %d events, want %d", ch, len(evs), runs)
		}
		consecutive(t, ch+" read", evs, 1)
		for i, ev := range evs {
			if !strings.Contains(string(ev.Payload), fmt.Sprintf(`"%d + 0"`, i)) {
				t.Fatalf("%s event %d: %s", ch, ev.Seq, ev.Payload)
			}
		}
		if tail, err := owner.EventsRead(ctx, ch, 0, 10); err != nil {
			t.Fatal(err)
		} else {
			sameEvents(t, ch+" newest 10", tail, evs[runs-10:])
		}
		sameEvents(t, ch+" since 25", readAll(t, owner, ch, 25), evs[25:])
		sub, err := owner.Subscribe(ctx, ch, 0)
		if err != nil {
			t.Fatal(err)
		}
		sameEvents(t, ch+" subscription", collect(t, sub, runs), evs)
		if err := sub.Unsubscribe(ctx); err != nil {
			t.Fatal(err)
		}
	}
	jsub, err := owner.Subscribe(ctx, "journal", 30)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := owner.Exec(ctx, client.ExecParams{Src: fmt.Sprintf("%d + 1", i)}); err != nil {
			t.Fatal(err)
		}
	}
	consecutive(t, "journal since 30, then live", collect(t, jsub, runs-30+20), 31)
}

// The journal channel's replay is scoped as journal.query is: a
// principal with journal_read gets its own rows only, journal_read_all
// every row, none without journal_read, and a token whose caps drop
// journal.read nothing, live or replayed, whatever its policy says.
// session.transcript replays only the reader's own (principal, session).
// A reader of its own rows only sees them numbered among its own (seq
// and id), so it cannot count other principals' runs from gaps.
func TestE2EReplayScoping(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	state := filepath.Join(filepath.Dir(dir), "state")
	k := replayKernel(t, sock, dir, store, state, 3000)
	ctx := testCtx(t)
	workerTok := k.token(t, "agent:worker")
	muteTok := k.token(t, "agent:mute")
	_, narrowTok, err := auth.Open(store).Create("agent:auditor", "agent", []string{"fs.read"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, auditTok, err := auth.Open(store).Create("agent:auditor", "agent", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	owner := k.attached(t, "s", "")
	worker := k.attached(t, "s", workerTok)
	mute := k.attached(t, "s", muteTok)
	for i := range 10 {
		for _, c := range []*client.Client{owner, worker, mute} {
			if _, err := c.Exec(ctx, client.ExecParams{Src: fmt.Sprintf("%d", i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(t *testing.T, k *e2eKernel, live bool) {
		owner := k.attached(t, "s", "")
		worker := k.attached(t, "s", workerTok)
		mute := k.attached(t, "s", muteTok)
		narrow := k.attached(t, "a", narrowTok)
		audit := k.attached(t, "a", auditTok)
		all := readAll(t, owner, "journal", 0)
		if len(all) != 30 {
			t.Fatalf("owner reads %d journal events, want 30", len(all))
		}
		consecutive(t, "owner", all, 1)
		sameEvents(t, "auditor", readAll(t, audit, "journal", 0), all)
		// The worker sees its own rows, numbered among its own: seq and
		// id 1, 2, 3… whatever ran between them.
		var mine []client.Event
		for _, ev := range all {
			if principalOf(t, ev) == "agent:worker" {
				mine = append(mine, ownNumbered(t, ev, len(mine)+1))
			}
		}
		sameEvents(t, "worker's journal read", readAll(t, worker, "journal", 0), mine)
		ws, err := worker.Subscribe(ctx, "journal", 0)
		if err != nil {
			t.Fatal(err)
		}
		sameEvents(t, "worker's journal subscription", collect(t, ws, 10), mine)
		for name, c := range map[string]*client.Client{"mute": mute, "narrowed token": narrow} {
			if evs := readAll(t, c, "journal", 0); len(evs) != 0 {
				t.Errorf("%s reads %d journal events", name, len(evs))
			}
			wantCode(t, name+" journal.query", c.Call(ctx, "journal.query", map[string]any{}, nil), proto.CodeLeashDenied)
		}
		ns, err := narrow.Subscribe(ctx, "journal", 0)
		if err != nil {
			t.Fatal(err)
		}
		// Transcripts: each reads its own session's ten.
		for name, c := range map[string]*client.Client{"owner": owner, "worker": worker, "mute": mute} {
			evs := readAll(t, c, "session.transcript", 0)
			if len(evs) != 10 {
				t.Fatalf("%s's transcript: %d events", name, len(evs))
			}
			consecutive(t, name+"'s transcript", evs, 1)
		}
		if evs := readAll(t, audit, "session.transcript", 0); len(evs) != 0 {
			t.Errorf("a fresh session's transcript replays %d events", len(evs))
		}
		if live {
			if _, err := owner.Exec(ctx, client.ExecParams{Src: "99"}); err != nil {
				t.Fatal(err)
			}
			if _, err := worker.Exec(ctx, client.ExecParams{Src: "98"}); err != nil {
				t.Fatal(err)
			}
			if ev := collect(t, ws, 1)[0]; principalOf(t, ev) != "agent:worker" || ev.Seq != 11 {
				t.Errorf("worker's live journal event: seq %d %s", ev.Seq, ev.Payload)
			}
			quiet(t, ws)
			quiet(t, ns) // its policy's audience includes it; its token does not
		}
	}
	check(t, k, false)
	k.stop(t)
	k2 := replayKernel(t, sock, dir, store, state, 3000)
	check(t, k2, true)
}

// A subscriber whose connection stops reading while the ring moves on far
// past it misses nothing on the journal channel: once it reads again, the
// rows the ring dropped come from the journal, in order, with no dropped
// marker.
func TestE2EReplayLaggingSubscriber(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	k := replayKernel(t, sock, dir, store, filepath.Join(filepath.Dir(dir), "state"), 3000)
	ctx := testCtx(t)
	var gate *gatedConn
	dialer := gatedDialer(&gate)
	const n = 800
	slow := k.attached(t, "slow", "", client.WithDialer(dialer), client.WithEventBuffer(4*n))
	s, err := slow.Subscribe(ctx, "journal", 0)
	if err != nil {
		t.Fatal(err)
	}
	owner := k.attached(t, "main", "")
	gate.pause()
	for i := range n {
		if _, err := owner.Exec(ctx, client.ExecParams{Src: fmt.Sprintf("%d + 2", i)}); err != nil {
			t.Fatal(err)
		}
	}
	gate.resume()
	evs := collect(t, s, n)
	consecutive(t, "lagging subscriber", evs, 1)
	for i, ev := range evs {
		if !strings.Contains(string(ev.Payload), fmt.Sprintf(`"%d + 2"`, i)) {
			t.Fatalf("event %d: %s", ev.Seq, ev.Payload)
		}
	}
	quiet(t, s)
}
