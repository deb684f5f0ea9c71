package kernel_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/kernel"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/proto"
)

// journalPolicy: agent:worker may read the working directory and its own
// journal rows, and its effects need approval; agent:mute may read files
// but not the journal.
const journalPolicy = `
[principal."agent:worker"]
fs.read = ["DIR", "DIR/**"]
auto_apply = "never"
journal_read = true

[principal."agent:mute"]
fs.read = ["DIR", "DIR/**"]
auto_apply = "in-grant"
`

// journalKernel starts a kernel keeping its journal in stateDir, with
// journalPolicy.
func journalKernel(t *testing.T, sock, dir, store, stateDir string) *e2eKernel {
	t.Helper()
	pol, err := policy.Parse([]byte(strings.ReplaceAll(journalPolicy, "DIR", dir)), filepath.Dir(dir))
	if err != nil {
		t.Fatalf("policy: %v", err)
	}
	return serveConfigE2E(t, sock, dir, store, kernel.Config{Version: "e2e", TokenStore: store, Dir: dir,
		Env: []string{"HOME=" + filepath.Dir(dir), "PATH=/usr/bin:/bin"}, Policy: pol, StateDir: stateDir})
}

// wireEntry is a journal.query entry as a client reads it.
type wireEntry struct {
	ID        int64             `json:"id"`
	Session   string            `json:"session"`
	Principal string            `json:"principal"`
	TS        int64             `json:"ts"`
	DurNS     *int64            `json:"dur_ns"`
	Finished  bool              `json:"finished"`
	Cwd       string            `json:"cwd"`
	Src       string            `json:"src"`
	AST       json.RawMessage   `json:"ast"`
	Effects   []json.RawMessage `json:"effects"`
	Status    *int              `json:"status"`
	OK        bool              `json:"ok"`
	Opaque    bool              `json:"opaque"`
	Verdict   string            `json:"verdict"`
	Outputs   []struct {
		Kind string `json:"kind"`
		Hash string `json:"hash"`
		Len  int64  `json:"len"`
	} `json:"outputs"`
}

func (e wireEntry) String() string {
	b, _ := json.Marshal(e)
	return string(b)
}

func (e wireEntry) output(kind string) string {
	for _, o := range e.Outputs {
		if o.Kind == kind {
			return o.Hash
		}
	}
	return ""
}

func (e wireEntry) hasKind(kind string) bool {
	for _, raw := range e.Effects {
		var x struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(raw, &x) == nil && x.Kind == kind {
			return true
		}
	}
	return false
}

func queryJournal(t *testing.T, c *client.Client, params map[string]any) []wireEntry {
	t.Helper()
	var out []wireEntry
	if err := c.Call(testCtx(t), "journal.query", params, &out); err != nil {
		t.Fatalf("journal.query %v: %v", params, err)
	}
	for i := 1; i < len(out); i++ {
		if out[i].ID >= out[i-1].ID {
			t.Fatalf("journal.query %v: not newest first: %d then %d", params, out[i-1].ID, out[i].ID)
		}
	}
	return out
}

type blobAnswer struct {
	Hash   string          `json:"hash"`
	Len    int64           `json:"len"`
	Offset int64           `json:"offset"`
	EOF    bool            `json:"eof"`
	Value  json.RawMessage `json:"value"`
}

func getBlob(c *client.Client, t *testing.T, params map[string]any) (blobAnswer, error) {
	var a blobAnswer
	err := c.Call(testCtx(t), "blob.get", params, &a)
	return a, err
}

func srcs(es []wireEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Src
	}
	return out
}

// Rows for a success, a language error, a parse error (none), a run
// refused by policy and an approved run; scoping by principal; blobs; and
// all of it still there after a restart on the same state directory.
func TestE2EJournalRows(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	state := filepath.Join(filepath.Dir(dir), "state")
	k := journalKernel(t, sock, dir, store, state)
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	owner := k.attached(t, "main", "")
	worker := k.attached(t, "w", k.token(t, "agent:worker"))
	mute := k.attached(t, "m", k.token(t, "agent:mute"))

	if _, err := owner.Exec(ctx, client.ExecParams{Src: "1 + 1"}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "1 / 0", owner.Call(ctx, "exec", map[string]any{"src": "1 / 0"}, nil), proto.CodeRaised)
	wantCode(t, "parse error", owner.Call(ctx, "exec", map[string]any{"src": "1 +"}, nil), proto.CodeParseError)
	wantCode(t, "worker ls", worker.Call(ctx, "exec", map[string]any{"src": "ls ."}, nil), proto.CodeApprovalRequired)
	p := storePlan(t, worker, "ls .")
	if _, err := capRequest(owner, t, map[string]any{"plan_ref": p.PlanRef}); err != nil {
		t.Fatal(err)
	}
	var res client.ExecResult
	if err := worker.Call(ctx, "plan.apply", map[string]any{"plan_ref": p.PlanRef}, &res); err != nil {
		t.Fatalf("plan.apply: %v", err)
	}
	if _, err := mute.Exec(ctx, client.ExecParams{Src: "2 + 2"}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "mute journal.query", mute.Call(ctx, "journal.query", map[string]any{}, nil), proto.CodeLeashDenied)
	if info, err := owner.KernelInfo(ctx); err != nil || !info.Features["journal"] {
		t.Errorf("kernel.info features = %v, %v; want journal", info, err)
	}

	check := func(t *testing.T, owner, worker *client.Client) {
		all := queryJournal(t, owner, map[string]any{})
		if got := strings.Join(srcs(all), " | "); got != "2 + 2 | ls . | ls . | 1 / 0 | 1 + 1" {
			t.Fatalf("owner's journal = %q", got)
		}
		mine, apply, refused, fail, ok := all[0], all[1], all[2], all[3], all[4]
		if !ok.OK || ok.Verdict != "allow" || ok.Principal == "" || ok.Session != "main" || ok.Cwd != dir ||
			len(ok.AST) < 10 || len(ok.Effects) != 0 || !ok.Finished || ok.DurNS == nil || ok.TS <= 0 {
			t.Errorf("1 + 1 row = %s", ok)
		}
		if fail.OK || fail.Verdict != "allow" || fail.output("value") == "" || !fail.Finished {
			t.Errorf("1 / 0 row = %s", fail)
		}
		if refused.OK || refused.Verdict != "approval_required" || refused.Principal != "agent:worker" || !refused.hasKind("fs_read") || len(refused.Outputs) != 0 {
			t.Errorf("refused row = %s", refused)
		}
		if !apply.OK || apply.Verdict != "approved" || !apply.hasKind("fs_read") || apply.output("value") == "" {
			t.Errorf("approved row = %s", apply)
		}
		if mine.Principal != "agent:mute" || !mine.OK {
			t.Errorf("mute's row = %+v", mine)
		}
		// The value blob of 1 + 1 is its wire JSON.
		b, err := getBlob(owner, t, map[string]any{"hash": ok.output("value")})
		if err != nil || !b.EOF || b.Offset != 0 || b.Len != int64(len(b.Value)) || string(b.Value) != `{"$":"int","v":2}` {
			t.Errorf("blob.get 1 + 1's value = %+v, %v", b, err)
		}
		// A range is bytes.
		b, err = getBlob(owner, t, map[string]any{"hash": ok.output("value"), "offset": 2, "length": 3})
		var bytesV struct {
			T string `json:"$"`
			V string `json:"v"`
		}
		if err == nil {
			err = json.Unmarshal(b.Value, &bytesV)
		}
		if raw, _ := base64.StdEncoding.DecodeString(bytesV.V); err != nil || bytesV.T != "bytes" || string(raw) != `$":` || b.EOF || b.Offset != 2 {
			t.Errorf("blob.get range = %+v (%q), %v", b, raw, err)
		}

		// The worker sees its own rows only, whatever it asks for.
		wr := queryJournal(t, worker, map[string]any{})
		// by its own ids: its two rows are 2 and 1, whatever else ran.
		if got := strings.Join(srcs(wr), " | "); got != "ls . | ls ." || wr[0].ID != 2 || wr[1].ID != 1 {
			t.Errorf("worker's journal = %q", got)
		}
		if wr := queryJournal(t, worker, map[string]any{"principal": ok.Principal}); len(wr) != 0 {
			t.Errorf("worker asking for the owner's rows gets %q", srcs(wr))
		}
		_, err = getBlob(worker, t, map[string]any{"hash": ok.output("value")})
		wantCode(t, "worker reading the owner's blob", err, proto.CodeUnknownRef)
		if _, err := getBlob(worker, t, map[string]any{"hash": apply.output("value")}); err != nil {
			t.Errorf("worker reading its own blob: %v", err)
		}
		_, err = getBlob(owner, t, map[string]any{"hash": "blake3:" + strings.Repeat("0", 64)})
		wantCode(t, "unknown blob", err, proto.CodeUnknownRef)
	}
	check(t, owner, worker)

	// Restart on the same state directory: rows and blobs are kept.
	k.stop(t)
	k2 := journalKernel(t, sock, dir, store, state)
	owner2 := k2.attached(t, "main", "")
	check(t, owner2, k2.attached(t, "w", k.token(t, "agent:worker")))
	// The journal channel numbers on above the rows of the first kernel,
	// whose events are replayed from the journal.
	if _, err := owner2.Exec(ctx, client.ExecParams{Src: "5 + 5"}); err != nil {
		t.Fatal(err)
	}
	evs, err := owner2.EventsRead(ctx, "journal", 0, 100)
	if err != nil || len(evs) != 6 || evs[5].Seq != 6 || !strings.Contains(string(evs[5].Payload), `"5 + 5"`) {
		t.Errorf("journal events after the restart: %d, %v; want the 5 replayed and one numbered 6", len(evs), err)
	}
}

// limit is exact with until and effects, and the next page continues
// from the last id.
func TestE2EJournalQueryFilters(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	k := journalKernel(t, sock, dir, store, filepath.Join(filepath.Dir(dir), "state"))
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	owner := k.attached(t, "main", "")
	for i := 0; i < 4; i++ {
		for _, src := range []string{"ls .", "1 + 1", "pwd"} {
			if _, err := owner.Exec(ctx, client.ExecParams{Src: src}); err != nil {
				t.Fatal(err)
			}
		}
	}
	all := queryJournal(t, owner, map[string]any{"limit": 1000})
	if len(all) != 12 {
		t.Fatalf("%d rows, want 12", len(all))
	}
	// until: strictly before the 6th newest row's start.
	until := all[5].TS
	got := queryJournal(t, owner, map[string]any{"effects": []string{"fs_read"}, "until": until, "limit": 2})
	if len(got) != 2 {
		t.Fatalf("effects+until+limit 2: %q", srcs(got))
	}
	for _, e := range got {
		if e.TS >= until || !e.hasKind("fs_read") || e.Src != "ls ." {
			t.Errorf("row %+v does not match until %d and fs_read", e, until)
		}
	}
	if n := len(queryJournal(t, owner, map[string]any{"effects": []string{"fs.read"}, "limit": 3})); n != 3 {
		t.Errorf("effects fs.read limit 3: %d rows", n)
	}
	if n := len(queryJournal(t, owner, map[string]any{"head": "pwd", "ok": true})); n != 4 {
		t.Errorf("head pwd: %d rows", n)
	}
	wantCode(t, "unknown effect", owner.Call(ctx, "journal.query", map[string]any{"effects": []string{"fs_bogus"}}, nil), proto.CodeInvalidParams)
	wantCode(t, "limit 0", owner.Call(ctx, "journal.query", map[string]any{"limit": 0}, nil), proto.CodeInvalidParams)

	// Pages of 5 by cursor cover every row once.
	var paged []wireEntry
	var cursor any
	for len(paged) < 20 {
		params := map[string]any{"limit": 5}
		if cursor != nil {
			params["cursor"] = cursor
		}
		page := queryJournal(t, owner, params)
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		cursor = page[len(page)-1].ID
	}
	if len(paged) != 12 || paged[11].ID != all[11].ID || paged[0].ID != all[0].ID {
		t.Errorf("paged %d rows", len(paged))
	}
}

// The journal channel carries a row to its principal and to readers of
// the whole journal, not to others.
func TestE2EJournalEvents(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	k := journalKernel(t, sock, dir, store, filepath.Join(filepath.Dir(dir), "state"))
	ctx := testCtx(t)
	owner := k.attached(t, "main", "")
	worker := k.attached(t, "w", k.token(t, "agent:worker"))
	mute := k.attached(t, "m", k.token(t, "agent:mute"))
	ws, err := worker.Subscribe(ctx, "journal", 0)
	if err != nil {
		t.Fatal(err)
	}
	osub, err := owner.Subscribe(ctx, "journal", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mute.Exec(ctx, client.ExecParams{Src: "3 + 3"}); err != nil {
		t.Fatal(err)
	}
	if _, err := worker.Exec(ctx, client.ExecParams{Src: "4 + 4"}); err != nil {
		t.Fatal(err)
	}
	var e wireEntry
	for _, want := range []string{"3 + 3", "4 + 4"} {
		ev := next(t, osub, 10*time.Second)
		if err := json.Unmarshal(ev.Payload, &e); err != nil || e.Src != want || !e.Finished || e.DurNS == nil {
			t.Errorf("owner's journal event %s, %v; want %q", ev.Payload, err, want)
		}
	}
	ev := next(t, ws, 10*time.Second)
	if err := json.Unmarshal(ev.Payload, &e); err != nil || e.Src != "4 + 4" || e.Principal != "agent:worker" {
		t.Errorf("worker's first journal event %s, %v; want its own 4 + 4", ev.Payload, err)
	}
	evs, err := worker.EventsRead(ctx, "journal", 0, 100)
	if err != nil || len(evs) != 1 || !regexp.MustCompile(`"4 \+ 4"`).Match(evs[0].Payload) {
		t.Errorf("worker reads %v, %v; want only its own row", evs, err)
	}
	// A long source is cut in the event, whole in journal.query; no AST.
	long := `"` + strings.Repeat("x", 5000) + `"`
	if _, err := owner.Exec(ctx, client.ExecParams{Src: long}); err != nil {
		t.Fatal(err)
	}
	var cut struct {
		Src          string          `json:"src"`
		SrcTruncated bool            `json:"src_truncated"`
		AST          json.RawMessage `json:"ast"`
	}
	ev = next(t, osub, 10*time.Second)
	if err := json.Unmarshal(ev.Payload, &cut); err != nil || !cut.SrcTruncated || len(cut.Src) != 4096 || string(cut.AST) != "null" {
		t.Errorf("long source's event: src %d bytes, truncated %v, ast %s, %v", len(cut.Src), cut.SrcTruncated, cut.AST, err)
	}
	if rows := queryJournal(t, owner, map[string]any{"limit": 1}); len(rows) != 1 || rows[0].Src != long || len(rows[0].AST) < 10 {
		t.Errorf("journal.query of the long source: %v", rows)
	}
	// agent:mute has no journal_read: not even its own rows.
	if evs, err := mute.EventsRead(ctx, "journal", 0, 100); err != nil || len(evs) != 0 {
		t.Errorf("mute reads %v, %v; want nothing", evs, err)
	}
}

// longText is a string literal whose value's blob is past the blob store's
// small-blob bound (cas.SmallBlobBytes), so that it is a file of its own.
var longText = strings.Repeat("a value too long for the small-blob pack ", 16)

// A blob whose file no longer matches its hash is not served; nor is a
// small blob whose bytes in the store's small-blob pack no longer do.
func TestE2EJournalCorruptBlob(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	state := filepath.Join(filepath.Dir(dir), "state")
	k := journalKernel(t, sock, dir, store, state)
	ctx := testCtx(t)
	owner := k.attached(t, "main", "")
	if _, err := owner.Exec(ctx, client.ExecParams{Src: `"corrupt small " + "please"`}); err != nil {
		t.Fatal(err)
	}
	small := queryJournal(t, owner, map[string]any{"limit": 1})[0].output("value")
	if b, err := getBlob(owner, t, map[string]any{"hash": small}); err != nil || string(b.Value) != `{"$":"str","v":"corrupt small please"}` {
		t.Fatalf("small blob.get before corruption: %+v, %v", b, err)
	}
	packPath := filepath.Join(state, "cas", "small.pack")
	pack, err := os.ReadFile(packPath)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(pack), "corrupt small please")
	if at < 0 {
		t.Fatalf("the small value is not in the pack (%d bytes)", len(pack))
	}
	pack[at] ^= 0x20
	if err := os.WriteFile(packPath, pack, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = getBlob(owner, t, map[string]any{"hash": small})
	wantCode(t, "corrupt small blob", err, proto.CodeUnknownRef)
	_, err = getBlob(owner, t, map[string]any{"hash": small, "offset": 0, "length": 4})
	wantCode(t, "corrupt small blob range", err, proto.CodeUnknownRef)

	if _, err := owner.Exec(ctx, client.ExecParams{Src: strconv.Quote("corrupt me " + longText)}); err != nil {
		t.Fatal(err)
	}
	rows := queryJournal(t, owner, map[string]any{"limit": 1})
	h := rows[0].output("value")
	if _, err := getBlob(owner, t, map[string]any{"hash": h}); err != nil {
		t.Fatalf("blob.get before corruption: %v", err)
	}
	hx := strings.TrimPrefix(h, "blake3:")
	path := filepath.Join(state, "cas", hx[:2], hx[2:])
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x20
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = getBlob(owner, t, map[string]any{"hash": h})
	wantCode(t, "corrupt blob", err, proto.CodeUnknownRef)
	_, err = getBlob(owner, t, map[string]any{"hash": h, "offset": 0, "length": 4})
	wantCode(t, "corrupt blob range", err, proto.CodeUnknownRef)
}

// Refusals of every kind of exec are rows: an approved exec with no
// approved plan (deny), an async run needing approval, and an approved
// exec of an approved plan runs as "approved".
func TestE2EJournalRefusedAndApprovedExecs(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	k := journalKernel(t, sock, dir, store, filepath.Join(filepath.Dir(dir), "state"))
	ctx := testCtx(t)
	owner := k.attached(t, "main", "")
	worker := k.attached(t, "w", k.token(t, "agent:worker"))
	wantCode(t, "approved without a plan", worker.Call(ctx, "exec", map[string]any{"src": "ls .", "mode": "approved"}, nil), proto.CodeLeashDenied)
	wantCode(t, "async needing approval", worker.Call(ctx, "exec", map[string]any{"src": "ls ./", "async": true}, nil), proto.CodeApprovalRequired)
	p := storePlan(t, worker, "ls .")
	if _, err := capRequest(owner, t, map[string]any{"plan_ref": p.PlanRef}); err != nil {
		t.Fatal(err)
	}
	if err := worker.Call(ctx, "exec", map[string]any{"src": "ls .", "mode": "approved"}, nil); err != nil {
		t.Fatalf("approved exec: %v", err)
	}
	rows := queryJournal(t, worker, map[string]any{})
	if len(rows) != 3 {
		t.Fatalf("worker's rows: %v", rows)
	}
	want := []struct {
		src, verdict string
		ok           bool
	}{{"ls .", "approved", true}, {"ls ./", "approval_required", false}, {"ls .", "deny", false}}
	for i, w := range want {
		if r := rows[i]; r.Src != w.src || r.Verdict != w.verdict || r.OK != w.ok || !r.Finished {
			t.Errorf("row %d = %s, want %+v", i, r, w)
		}
	}
	if got := queryJournal(t, worker, map[string]any{"ok": false}); len(got) != 2 {
		t.Errorf("ok: false gives %d rows, want 2", len(got))
	}
}

// At start the kernel sweeps blobs no row names (older than the grace);
// a blob a row names stays, however old.
func TestE2EJournalSweepKeepsReferencedBlobs(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	state := filepath.Join(filepath.Dir(dir), "state")
	k := journalKernel(t, sock, dir, store, state)
	owner := k.attached(t, "main", "")
	if _, err := owner.Exec(testCtx(t), client.ExecParams{Src: strconv.Quote("keep me " + longText)}); err != nil {
		t.Fatal(err)
	}
	kept := queryJournal(t, owner, map[string]any{"limit": 1})[0].output("value")
	k.stop(t)
	blobPath := func(h string) string {
		hx := strings.TrimPrefix(h, "blake3:")
		return filepath.Join(state, "cas", hx[:2], hx[2:])
	}
	// An orphan: a well-formed blob file no row names.
	orphan := "blake3:af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262" // BLAKE3 of ""
	if err := os.MkdirAll(filepath.Dir(blobPath(orphan)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blobPath(orphan), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	for _, h := range []string{orphan, kept} {
		if err := os.Chtimes(blobPath(h), old, old); err != nil {
			t.Fatal(err)
		}
	}
	k2 := journalKernel(t, sock, dir, store, state)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(blobPath(orphan)); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the orphan blob was not swept")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if b, err := getBlob(k2.attached(t, "main", ""), t, map[string]any{"hash": kept}); err != nil || string(b.Value) != `{"$":"str","v":"keep me `+longText+`"}` {
		t.Errorf("referenced blob after the sweep: %+v, %v", b, err)
	}
}

// TestE2EJournalUndo: the journal keeps what undoing a run takes, so in a
// kernel session `undo` of an rm restores the file, a second undo of it
// is refused, and an entry that ran a
// program is refused as not reversible with nothing touched.
func TestE2EJournalUndo(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	state := filepath.Join(filepath.Dir(dir), "state")
	k := journalKernel(t, sock, dir, store, state)
	f := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(f, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	owner := k.attached(t, "main", "")
	if _, err := owner.Exec(ctx, client.ExecParams{Src: "rm f.txt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f); !os.IsNotExist(err) {
		t.Fatalf("rm left f.txt: %v", err)
	}
	if _, err := owner.Exec(ctx, client.ExecParams{Src: "undo"}); err != nil {
		t.Fatalf("undo: %v", err)
	}
	if b, err := os.ReadFile(f); err != nil || string(b) != "keep" {
		t.Fatalf("after undo f.txt = %q, %v; want it back", b, err)
	}
	var rmID int64
	for _, e := range queryJournal(t, owner, map[string]any{"head": "rm"}) {
		rmID = e.ID
	}
	if rmID == 0 {
		t.Fatal("no row for rm")
	}
	r := owner.Call(ctx, "exec", map[string]any{"src": "undo " + strconv.FormatInt(rmID, 10)}, nil)
	wantCode(t, "second undo of rm", r, proto.CodeRaised)
	if b, err := os.ReadFile(f); err != nil || string(b) != "keep" {
		t.Fatalf("a refused undo touched f.txt: %q, %v", b, err)
	}

	if _, err := owner.Exec(ctx, client.ExecParams{Src: "^sh -c 'rm -f f.txt.none'"}); err != nil {
		t.Fatal(err)
	}
	var shID int64
	for _, e := range queryJournal(t, owner, map[string]any{"head": "^sh", "limit": 1}) {
		shID = e.ID
	}
	if shID == 0 {
		t.Fatal("no row for the spawn")
	}
	var ec *proto.RPCError
	err := owner.Call(ctx, "exec", map[string]any{"src": "undo " + strconv.FormatInt(shID, 10)}, nil)
	if !errors.As(err, &ec) || ec.Code != proto.CodeRaised || !strings.Contains(fmt.Sprint(ec.Data), "not_reversible") {
		t.Fatalf("undo of a spawn = %v, want a not_reversible error", err)
	}
}
