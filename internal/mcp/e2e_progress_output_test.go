package mcp_test

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/internal/mcp"
)

// outputNotes are the progress notifications that carry output, by the
// output offset of their first byte.
func outputNotes(t *testing.T, got []*sdk.ProgressNotificationParams) (offsets []int64, byOff map[int64]string) {
	t.Helper()
	byOff = map[int64]string{}
	for _, n := range got {
		off, ok := n.Meta["shoal/offset"].(float64)
		if !ok {
			if !strings.Contains(n.Message, "running for") {
				t.Errorf("a progress notification with neither output nor status: %+v", n)
			}
			continue
		}
		if _, ok := n.Meta["shoal/task"].(string); !ok {
			t.Errorf("output notification without its task: %+v", n)
		}
		if len(n.Message) > mcp.ProgressOutputBytes {
			t.Errorf("an output notification of %d bytes, past ProgressOutputBytes %d", len(n.Message), mcp.ProgressOutputBytes)
		}
		offsets = append(offsets, int64(off))
		byOff[int64(off)] = n.Message
	}
	if !sort.SliceIsSorted(offsets, func(i, j int) bool { return offsets[i] < offsets[j] }) {
		t.Errorf("output notifications out of order: %v", offsets)
	}
	return offsets, byOff
}

// waitProgress waits until count progress notifications' messages hold
// want; the deadline only keeps a broken facade from hanging the test.
func waitProgress(t *testing.T, s *session, want string, count int) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		seen := 0
		for _, n := range s.notes.progresses() {
			if strings.Contains(n.Message, want) {
				seen++
			}
		}
		if seen >= count {
			return
		}
		select {
		case <-s.notes.changed:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("not %d progress notifications carrying %q within a minute", count, want)
		}
	}
}

// TestE2EProgressOutput: a shoal_exec sent with a progress token gets
// what its program prints in progress notifications while it runs (the
// program goes on only once the test, having seen its first line in one,
// creates its gate), each within ProgressOutputBytes, in order, together
// exactly what it printed; the result is the exec's as without a token.
// A program printing ten times ProgressOutputBytes at once is carried in
// messages of at most that many bytes.
func TestE2EProgressOutput(t *testing.T) {
	k := startKernel(t)
	s := connect(t, k)
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	script := filepath.Join(dir, "p.sh")
	body := "echo first\nwhile [ ! -e '" + gate + "' ]; do sleep 0.05; done\necho second\n"
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	p := &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "^sh '" + script + "'", "position": "stmt"}}
	p.SetProgressToken("tok-out")
	type answer struct {
		res *sdk.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := s.cs.CallTool(ctx(t), p)
		done <- answer{res, err}
	}()
	waitProgress(t, s, "first\n", 1)
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	a := <-done
	if a.err != nil || a.res.IsError {
		t.Fatalf("the call = %v, %v", a.res, a.err)
	}
	// The facade sends the last output before the result, but the client
	// may hand a notification on after the result it preceded.
	waitProgress(t, s, "second\n", 1)
	offsets, byOff := outputNotes(t, s.notes.progresses())
	var all string
	for _, off := range offsets {
		if off != int64(len(all)) {
			t.Fatalf("output notification at %d after %d bytes: a gap", off, len(all))
		}
		all += byOff[off]
	}
	if all != "first\nsecond\n" {
		t.Errorf("progress carried %q, want the program's output", all)
	}

	// Ten times the bytes one message may carry, printed at once.
	big := filepath.Join(dir, "big.sh")
	gate2 := filepath.Join(dir, "gate2")
	body = "head -c " + strconv.Itoa(10*mcp.ProgressOutputBytes) + " /dev/zero | tr '\\000' x\nwhile [ ! -e '" + gate2 + "' ]; do sleep 0.05; done\n"
	if err := os.WriteFile(big, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	before := len(s.notes.progresses())
	p = &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "^sh '" + big + "'; 7", "position": "stmt"}}
	p.SetProgressToken("tok-big")
	go func() {
		res, err := s.cs.CallTool(ctx(t), p)
		done <- answer{res, err}
	}()
	waitProgress(t, s, "xxxx", 2) // two messages while it runs
	if err := os.WriteFile(gate2, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	a = <-done
	if a.err != nil || a.res.IsError || !strings.Contains(text(a.res), "7") {
		t.Fatalf("the big call = %v, %v", a.res, a.err)
	}
	var mine []*sdk.ProgressNotificationParams
	for _, n := range s.notes.progresses()[before:] {
		if n.ProgressToken == "tok-big" {
			mine = append(mine, n)
		}
	}
	if offsets, _ := outputNotes(t, mine); len(offsets) < 2 {
		t.Errorf("%d output notifications for %d bytes, want them split", len(offsets), 10*mcp.ProgressOutputBytes)
	}
}
