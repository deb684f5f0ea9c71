package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/shoalgo/shoal/proto"
)

// fakeJournalKernel answers session.attach and journal.query on a temp
// Unix socket with proto's framing, recording the journal.query params.
// Its entries follow the contract's pinned Journal shape.
type fakeJournalKernel struct {
	path    string
	mu      sync.Mutex
	queries []map[string]any
	attach  []map[string]any
	answer  func(params map[string]any) (any, *proto.RPCError)
}

func newFakeJournalKernel(t *testing.T) *fakeJournalKernel {
	t.Helper()
	dir, err := os.MkdirTemp("", "sh")
	if err != nil {
		t.Fatal(err)
	}
	k := &fakeJournalKernel{path: filepath.Join(dir, "k.sock")}
	ln, err := net.Listen("unix", k.path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var conns []net.Conn
	var cmu sync.Mutex
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			cmu.Lock()
			conns = append(conns, nc)
			cmu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				k.serve(t, nc)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		cmu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		cmu.Unlock()
		wg.Wait()
		_ = os.RemoveAll(dir)
	})
	return k
}

func (k *fakeJournalKernel) serve(t *testing.T, nc net.Conn) {
	defer nc.Close()
	r, w := proto.NewReader(nc, 0), proto.NewWriter(nc)
	for {
		frame, err := r.ReadFrame()
		if err != nil {
			return
		}
		req, rerr := proto.DecodeRequest(frame)
		if rerr != nil {
			t.Errorf("bad request %q: %v", frame, rerr)
			return
		}
		var params map[string]any
		_ = json.Unmarshal(req.Params, &params)
		k.mu.Lock()
		switch req.Method {
		case proto.MethodSessionAttach:
			k.attach = append(k.attach, params)
			k.mu.Unlock()
			_ = w.WriteFrame(proto.NewResponse(req.ID, map[string]any{"session": "default", "principal": "local"}))
		case proto.MethodJournalQuery:
			k.queries = append(k.queries, params)
			answer := k.answer
			k.mu.Unlock()
			res, perr := answer(params)
			if perr != nil {
				_ = w.WriteFrame(proto.NewErrorResponse(req.ID, perr))
			} else {
				_ = w.WriteFrame(proto.NewResponse(req.ID, res))
			}
		default:
			k.mu.Unlock()
			_ = w.WriteFrame(proto.NewErrorResponse(req.ID, proto.NewError(proto.CodeMethodNotFound, "no "+req.Method, nil)))
		}
	}
}

// historyEntries is a page in the pinned Journal shape.
var historyEntries = []map[string]any{
	{"id": 7, "session": "work", "principal": "agent", "ts": int64(1767225600000000000), "dur_ns": 1500,
		"cwd": "/w", "src": "rm a.txt\nrm b.txt", "ast": nil,
		"effects": []any{map[string]any{"kind": "fs_read", "path": "/w/a.txt"}, map[string]any{"kind": "fs_delete", "path": "/w/a.txt"}, map[string]any{"kind": "fs_read", "path": "/w/b.txt"}},
		"status":  0, "ok": true, "opaque": false, "verdict": "allow", "outputs": []any{map[string]any{"kind": "value", "hash": "blake3:00", "len": 12}}},
	{"id": 5, "session": "work", "principal": "agent", "ts": int64(1767225500000000000), "dur_ns": nil,
		"cwd": "/w", "src": "sh { sleep 100 }", "ast": nil, "effects": []any{},
		"status": nil, "ok": false, "opaque": true, "verdict": "allow", "outputs": []any{}},
}

// pageOf answers journal.query from entries (newest first) as the kernel
// does: those older than the cursor, at most limit of them (at most cut,
// when cut > 0: a page the kernel's byte bound ended early).
func pageOf(entries []map[string]any, cut int) func(params map[string]any) (any, *proto.RPCError) {
	return func(params map[string]any) (any, *proto.RPCError) {
		limit := 100
		if l, ok := params["limit"].(float64); ok {
			limit = int(l)
		}
		if cut > 0 {
			limit = min(limit, cut)
		}
		out := []map[string]any{}
		for _, e := range entries {
			id, _ := e["id"].(int)
			if c, ok := params["cursor"].(float64); ok && float64(id) >= c {
				continue
			}
			if len(out) == limit {
				break
			}
			out = append(out, e)
		}
		return out, nil
	}
}

func runHistory(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"history"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestHistoryTable(t *testing.T) {
	k := newFakeJournalKernel(t)
	k.answer = pageOf(historyEntries, 0)
	code, out, errs := runHistory(t, "--socket="+k.path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and 2 rows:\n%s", out)
	}
	for _, col := range []string{"ID", "TS", "PRINCIPAL", "SESSION", "OK", "STATUS", "EFFECTS", "SRC"} {
		if !strings.Contains(lines[0], col) {
			t.Errorf("header %q lacks %s", lines[0], col)
		}
	}
	for _, want := range []string{"7", "2026-01-01T00:00:00Z", "agent", "work", "true", "fs_read,fs_delete ", "rm a.txt…"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("row %q lacks %q", lines[1], want)
		}
	}
	for _, want := range []string{"5", "unfinished", "opaque", "sh { sleep 100 }"} {
		if !strings.Contains(lines[2], want) {
			t.Errorf("row %q lacks %q", lines[2], want)
		}
	}
	if got := k.queries[0]["limit"]; got != float64(historyDefaultLimit+1) {
		t.Errorf("default limit sent %v", got)
	}
	if len(k.attach) != 1 || k.attach[0]["session"] != "default" {
		t.Errorf("attach params %v", k.attach)
	}
	if strings.Contains(errs, "more:") {
		t.Errorf("a short page offered more: %q", errs)
	}
}

func TestHistoryFiltersReachTheQuery(t *testing.T) {
	k := newFakeJournalKernel(t)
	k.answer = pageOf(historyEntries, 0)
	code, out, errs := runHistory(t, "--socket="+k.path, "--head=rm", "--principal=agent", "--session=work",
		"--failed", "--effect=fs_delete", "--effect=fs_read", "--since=2026-01-01T00:00:00Z", "--until=1767225600000000001",
		"--limit=1", "--cursor=9", "--attach=work", "--token=tok")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := map[string]any{
		"head": "rm", "principal": "agent", "session": "work", "ok": false,
		"effects": []any{"fs_delete", "fs_read"}, "since": float64(1767225600000000000), "until": float64(1767225600000000001),
		"limit": float64(2), "cursor": float64(9), // one more than shown: is there a next page?
	}
	if !reflect.DeepEqual(k.queries[0], want) {
		t.Errorf("journal.query params\n got %v\nwant %v", k.queries[0], want)
	}
	if k.attach[0]["session"] != "work" || k.attach[0]["token"] != "tok" {
		t.Errorf("attach params %v", k.attach[0])
	}
	if !strings.Contains(errs, "more: shoal history --cursor=7") {
		t.Errorf("a page with more after it did not offer the next: %q", errs)
	}
	if strings.Contains(out, "sleep 100") {
		t.Errorf("the entry asked for to see whether there is more was shown:\n%s", out)
	}
}

// TestHistoryMoreOnlyWhenThereIsMore: a page that holds the last entries
// offers no next page, even when it is full; the JSON answer is the
// entries shown; at the kernel's largest page, a full page offers the next.
func TestHistoryMoreOnlyWhenThereIsMore(t *testing.T) {
	k := newFakeJournalKernel(t)
	k.answer = pageOf(historyEntries, 0)
	code, _, errs := runHistory(t, "--socket="+k.path, "--limit=2")
	if code != 0 || strings.Contains(errs, "more:") {
		t.Errorf("a full page of the last entries: exit %d, stderr %q; want no more:", code, errs)
	}

	code, out, errs := runHistory(t, "--socket="+k.path, "--limit=1", "--json")
	if code != 0 || strings.Contains(errs, "more:") {
		t.Fatalf("--json: exit %d, stderr %q", code, errs)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 || got[0]["id"] != float64(7) {
		t.Errorf("--json --limit=1 printed %d entries (%v):\n%s", len(got), err, out)
	}

	// The largest page has no room for the extra entry: the next is
	// asked for, one entry from the last shown.
	rows := make([]map[string]any, proto.JournalMaxLimit+1)
	for i := range rows {
		rows[i] = map[string]any{"id": 5000 - i, "session": "s", "principal": "p", "ts": int64(1), "src": "1", "ok": true, "effects": []any{}, "outputs": []any{}}
	}
	for _, c := range []struct {
		rows []map[string]any
		more bool
	}{{rows, true}, {rows[:proto.JournalMaxLimit], false}} {
		k.answer = pageOf(c.rows, 0)
		k.mu.Lock()
		first := len(k.queries)
		k.mu.Unlock()
		code, _, errs = runHistory(t, "--socket="+k.path, fmt.Sprintf("--limit=%d", proto.JournalMaxLimit))
		want := fmt.Sprintf("more: shoal history --cursor=%d", 5000-proto.JournalMaxLimit+1)
		if code != 0 || strings.Contains(errs, want) != c.more {
			t.Errorf("the largest page, full, %d rows in all: exit %d, stderr %q; want more: %v", len(c.rows), code, errs, c.more)
		}
		k.mu.Lock()
		asked := k.queries[first]["limit"]
		probe := k.queries[len(k.queries)-1]
		k.mu.Unlock()
		if asked != float64(proto.JournalMaxLimit) {
			t.Errorf("at the largest page the query asked for %v entries; want %d", asked, proto.JournalMaxLimit)
		}
		if probe["limit"] != float64(1) || probe["cursor"] != float64(5000-proto.JournalMaxLimit+1) {
			t.Errorf("the next page was asked for with %v; want limit 1 from the last id shown", probe)
		}
	}
}

// TestHistoryPageCutByBytes: a page the kernel ended early at its byte
// bound (fewer entries than asked for, more after them) offers the next
// page; a short page at the journal's end does not.
func TestHistoryPageCutByBytes(t *testing.T) {
	k := newFakeJournalKernel(t)
	rows := make([]map[string]any, 10)
	for i := range rows {
		rows[i] = map[string]any{"id": 100 - i, "session": "s", "principal": "p", "ts": int64(1), "src": "big", "ok": true, "effects": []any{}, "outputs": []any{}}
	}
	k.answer = pageOf(rows, 4) // four entries reach the byte bound
	code, out, errs := runHistory(t, "--socket="+k.path)
	if code != 0 || !strings.Contains(errs, "more: shoal history --cursor=97") {
		t.Errorf("a page cut by bytes: exit %d, stderr %q; want more: --cursor=97", code, errs)
	}
	if n := strings.Count(out, "big"); n != 4 {
		t.Errorf("a page cut by bytes showed %d entries, want the 4 answered:\n%s", n, out)
	}
	code, _, errs = runHistory(t, "--socket="+k.path, "--cursor=93")
	if code != 0 || strings.Contains(errs, "more:") {
		t.Errorf("the last page, cut by bytes or not: exit %d, stderr %q; want no more:", code, errs)
	}
}

func TestHistoryJSON(t *testing.T) {
	k := newFakeJournalKernel(t)
	k.answer = pageOf(historyEntries, 0)
	code, out, errs := runHistory(t, "--socket="+k.path, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(got) != 2 || got[0]["id"] != float64(7) || got[1]["dur_ns"] != nil || got[0]["outputs"].([]any)[0].(map[string]any)["hash"] != "blake3:00" {
		t.Errorf("JSON lost fields: %v", got)
	}
}

func TestHistoryErrors(t *testing.T) {
	k := newFakeJournalKernel(t)
	k.answer = func(map[string]any) (any, *proto.RPCError) {
		return nil, proto.NewError(proto.CodeLeashDenied, "leash denied: journal_read = false", nil)
	}
	if code, _, errs := runHistory(t, "--socket="+k.path); code != 1 || !strings.Contains(errs, "journal_read = false") {
		t.Errorf("a denied query: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{
		{"--limit=0"}, {"--limit=1001"}, {"--ok=maybe"}, {"--ok=true", "--failed"}, {"--since=yesterday"}, {"--bogus"}, {"extra"}, {"--cursor=-1"}, {"--effect="},
	} {
		code, _, errs := runHistory(t, append([]string{"--socket=" + k.path}, args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d (%q), want 2", args, code, errs)
		}
	}
	k.mu.Lock()
	n := len(k.queries)
	k.mu.Unlock()
	if n != 1 {
		t.Errorf("bad flags still queried the kernel: %d queries", n)
	}
	missing := filepath.Join(t.TempDir(), "none.sock")
	if code, _, errs := runHistory(t, "--socket="+missing); code != 1 || !strings.Contains(errs, "no kernel at") {
		t.Errorf("no kernel: exit %d, %q", code, errs)
	}
}

func TestSrcLine(t *testing.T) {
	for in, want := range map[string]string{
		"ls":                    "ls",
		"ls\n":                  "ls",
		"a\nb":                  "a…",
		"a\tb":                  "a b",
		strings.Repeat("x", 70): strings.Repeat("x", historySrcWidth) + "…",
		"\x1b[31mred":           " [31mred",
		strings.Repeat("é", 61): strings.Repeat("é", 60) + "…",
	} {
		if got := srcLine(in); got != want {
			t.Errorf("srcLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHistoryFindsTheKernelThroughShoalSocket: without --socket, `shoal
// history` uses $SHOAL_SOCKET before any discovery, as every client does.
func TestHistoryFindsTheKernelThroughShoalSocket(t *testing.T) {
	k := newFakeJournalKernel(t)
	k.answer = pageOf(historyEntries, 0)
	t.Setenv("SHOAL_SOCKET", k.path)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	code, out, errs := runHistory(t)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "rm a.txt") || len(k.queries) != 2 { // the page, then one entry past it
		t.Errorf("history through $SHOAL_SOCKET printed %q, %d queries", out, len(k.queries))
	}
}
