//go:build linux

package hostile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
)

// journalEvent is the part of a journal event's payload these tests read.
type journalEvent struct {
	ID        int64  `json:"id"`
	Principal string `json:"principal"`
	Src       string `json:"src"`
}

// journalPeers starts a kernel whose policy lets agent:a and agent:b read
// their own journal rows only, and attaches each to its own session.
func journalPeers(t *testing.T, stateDir string) (k *Kernel, a, b *client.Client) {
	t.Helper()
	pol := filepath.Join(t.TempDir(), "policy.toml")
	text := "[principal.\"agent:a\"]\njournal_read = true\n[principal.\"agent:b\"]\njournal_read = true\n"
	if err := os.WriteFile(pol, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	k = Start(t, Options{Flags: []string{"--policy", pol}, StateDir: stateDir})
	return k, k.Attach(t, "a", k.Token(t, "agent:a")), k.Attach(t, "b", k.Token(t, "agent:b"))
}

// wantDense checks that evs are b's events numbered first..last by seq
// and by id alike.
func wantDense(t *testing.T, what string, evs []client.Event, first, last int64) {
	t.Helper()
	if int64(len(evs)) != last-first+1 {
		t.Fatalf("%s: %d events, want %d..%d", what, len(evs), first, last)
	}
	for i, ev := range evs {
		var p journalEvent
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			t.Fatalf("%s: payload %s: %v", what, ev.Payload, err)
		}
		n := first + int64(i)
		if ev.Seq != uint64(n) || p.ID != n || p.Principal != "agent:b" {
			t.Fatalf("%s: event %d is seq %d id %d of %s, want seq and id %d of agent:b", what, i, ev.Seq, p.ID, p.Principal, n)
		}
	}
}

// wantIDs checks a journal.query page's ids.
func wantIDs(t *testing.T, what string, rows []journalRow, ids ...int64) {
	t.Helper()
	got := make([]int64, len(rows))
	for i, r := range rows {
		got[i] = r.ID
	}
	if fmt.Sprint(got) != fmt.Sprint(ids) {
		t.Fatalf("%s: ids %v, want %v", what, got, ids)
	}
}

// TestHostileJournalOwnNumbering: principal A runs three execs (one of
// them refused) for each of principal B's, interleaved. Everything B sees
// of the journal counts only B's own rows: its journal events (live,
// replayed and read) are numbered 1..k by seq and by id alike,
// journal.query gives ids k..1 and pages by them, and so after a kernel
// restart, where the events are rebuilt from the database, and for B's
// next exec. The owner (journal_read_all) still sees every row, its
// journal seqs gapless over all of them.
func TestHostileJournalOwnNumbering(t *testing.T) {
	k, a, b := journalPeers(t, "")
	owner := k.Owner(t)
	ctx := Ctx(t)
	bsub, err := b.Subscribe(ctx, "journal", 0)
	if err != nil {
		t.Fatal(err)
	}
	osub, err := owner.Subscribe(ctx, "journal", 0)
	if err != nil {
		t.Fatal(err)
	}
	const rounds = 6
	for i := range rounds {
		for _, src := range []string{"1 + 1", "ls /", fmt.Sprintf("%d * 2", i)} {
			_, _ = a.Exec(ctx, client.ExecParams{Src: src}) // "ls /" is refused: a row all the same
		}
		if _, err := b.Exec(ctx, client.ExecParams{Src: fmt.Sprintf("%d + 100", i)}); err != nil {
			t.Fatalf("b's exec %d: %v", i, err)
		}
	}
	collect := func(s *client.Subscription, n int) []client.Event {
		t.Helper()
		var evs []client.Event
		deadline := time.After(20 * time.Second)
		for len(evs) < n {
			select {
			case ev := <-s.Events():
				evs = append(evs, ev)
			case <-deadline:
				t.Fatalf("%d of %d events after 20 s", len(evs), n)
			}
		}
		return evs
	}
	wantDense(t, "b's live journal events", collect(bsub, rounds), 1, rounds)
	all := queryRows(t, owner)
	if len(all) != 4*rounds {
		t.Fatalf("the owner sees %d rows, want %d", len(all), 4*rounds)
	}
	oevs := collect(osub, len(all))
	for i, ev := range oevs {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("the owner's journal event %d has seq %d", i, ev.Seq)
		}
	}
	read, err := b.EventsRead(ctx, "journal", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	wantDense(t, "b's events.read", read, 1, rounds)
	if read, _ = b.EventsRead(ctx, "journal", 3, 100); len(read) > 0 {
		wantDense(t, "b's events.read since 3", read, 4, rounds)
	}
	wantIDs(t, "b's journal.query", queryRows(t, b), 6, 5, 4, 3, 2, 1)
	var page []journalRow
	if err := b.Call(ctx, "journal.query", map[string]any{"limit": 2, "cursor": 5}, &page); err != nil {
		t.Fatal(err)
	}
	wantIDs(t, "b's page after id 5", page, 4, 3)

	// After a restart the events come from the database.
	k.Stop(t)
	k2, _, b2 := journalPeers(t, k.StateDir)
	read, err = b2.EventsRead(ctx, "journal", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	wantDense(t, "b's events.read after a restart", read, 1, rounds)
	bsub2, err := b2.Subscribe(ctx, "journal", 2)
	if err != nil {
		t.Fatal(err)
	}
	wantDense(t, "b's replay from 2 after a restart", collect(bsub2, rounds-2), 3, rounds)
	if _, err := b2.Exec(ctx, client.ExecParams{Src: "7 + 7"}); err != nil {
		t.Fatal(err)
	}
	wantDense(t, "b's next event", collect(bsub2, 1), rounds+1, rounds+1)
	wantIDs(t, "b's journal.query after a restart", queryRows(t, b2)[:2], rounds+1, rounds)
	if n := len(queryRows(t, k2.Owner(t))); n != 4*rounds+1 {
		t.Fatalf("the owner sees %d rows after the restart, want %d", n, 4*rounds+1)
	}
}

// TestHostileApprovalOwnNumbering: principal A stores two plans that need
// approval for each of principal B's. B, no approver, sees only its own
// session's approval events, numbered 1..k (subscription and events.read
// alike), nothing that counts A's plans; the owner, an approver, sees
// every event, its seqs gapless.
func TestHostileApprovalOwnNumbering(t *testing.T) {
	pol := filepath.Join(t.TempDir(), "policy.toml")
	text := ""
	for _, p := range []string{"agent:a", "agent:b"} {
		text += fmt.Sprintf("[principal.%q]\nauto_apply = \"never\"\n[principal.%q.fs]\nread = [\"%s/hk*/work\", \"%s/hk*/work/**\"]\n",
			p, p, os.TempDir(), os.TempDir())
	}
	if err := os.WriteFile(pol, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	k := Start(t, Options{Flags: []string{"--policy", pol}})
	a, b, owner := k.Attach(t, "a", k.Token(t, "agent:a")), k.Attach(t, "b", k.Token(t, "agent:b")), k.Owner(t)
	ctx := Ctx(t)
	bsub, err := b.Subscribe(ctx, "approval", 0)
	if err != nil {
		t.Fatal(err)
	}
	osub, err := owner.Subscribe(ctx, "approval", 0)
	if err != nil {
		t.Fatal(err)
	}
	plan := func(c *client.Client, who string) {
		t.Helper()
		var res struct {
			Verdict string `json:"verdict"`
		}
		if err := c.Call(ctx, "exec", map[string]any{"src": "ls .", "mode": "plan"}, &res); err != nil || res.Verdict != "approval_required" {
			t.Fatalf("%s's plan: %+v, %v", who, res, err)
		}
	}
	const rounds = 3
	for range rounds {
		plan(a, "a")
		plan(a, "a")
		plan(b, "b")
	}
	next := func(s *client.Subscription, what string) client.Event {
		t.Helper()
		select {
		case ev := <-s.Events():
			return ev
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no event after 20 s", what)
			return client.Event{}
		}
	}
	for i := range rounds {
		ev := next(bsub, "b's approval events")
		var p struct {
			Principal string `json:"principal"`
		}
		_ = json.Unmarshal(ev.Payload, &p)
		if ev.Seq != uint64(i+1) || p.Principal != "agent:b" {
			t.Fatalf("b's approval event %d: seq %d of %s, want seq %d of agent:b", i, ev.Seq, p.Principal, i+1)
		}
	}
	read, err := b.EventsRead(ctx, "approval", 1, 100)
	if err != nil || len(read) != rounds-1 || read[0].Seq != 2 || read[1].Seq != 3 {
		t.Fatalf("b's events.read since 1: %v %+v", err, read)
	}
	for i := range 3 * rounds {
		if ev := next(osub, "the owner's approval events"); ev.Seq != uint64(i+1) {
			t.Fatalf("the owner's approval event %d has seq %d", i, ev.Seq)
		}
	}
}
