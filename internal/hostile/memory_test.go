//go:build linux

package hostile

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// Memory attacks: a principal keeping far more than its session's memory
// budget alive, nested values in the transcript, concurrent large
// captures, and the process-wide guard. Budgets are set small by flag so
// each attack crosses its bound ten times over quickly and the machine
// stays light; the kernel runs under an address-space cap.

// rep is a Shoal function building a string of n bytes (n a power of two)
// by doubling.
const rep = "fn rep(n) { var s = \"x\"; while s.len() < n { s = s + s }; s }\n"

// memExec runs src in session for c with a generous deadline.
func memExec(t *testing.T, c *client.Client, src string) (*client.ExecResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(Ctx(t), 90*time.Second)
	defer cancel()
	return c.Exec(ctx, client.ExecParams{Src: src})
}

// wantQuota checks err is RAISED quota_exceeded naming the budget.
func wantQuota(t *testing.T, err error, budget string) {
	t.Helper()
	msg := WantLangCode(t, err, "quota_exceeded")
	if !strings.Contains(msg, "the "+budget+" budget") {
		t.Errorf("quota error %q does not name the %s budget", msg, budget)
	}
}

// stillServes checks that c's session answers after the attack.
func stillServes(t *testing.T, c *client.Client) {
	t.Helper()
	res, err := memExec(t, c, "1 + 1")
	if err != nil {
		t.Fatalf("the attacker's session no longer answers: %v", err)
	}
	if got := strings.ReplaceAll(string(res.Value), " ", ""); got != `{"$":"int","v":2}` {
		t.Errorf("1 + 1 answered %s", got)
	}
}

// TestMemoryKeptStrings: a token principal keeps 80 strings of 64 MiB
// (5 GiB, twenty times its 256 MiB session budget) in a list.
func TestMemoryKeptStrings(t *testing.T) {
	const rssBound = 1 << 30
	k := Start(t, Options{Flags: []string{"--session-memory", "256MiB"}, MemCap: 3 << 30})
	hb := k.Heartbeat(t)
	c := k.Attach(t, "s1", k.Token(t, "agent:evil"))
	_, err := memExec(t, c, rep+"var keep = []; for i in 0..80 { keep = keep + [rep(67108864) + i.str()] }; keep.len()")
	wantQuota(t, err, "session memory")
	// Kept in separate variables, one exec at a time, the same bound holds.
	var last error
	for i := range 8 {
		if _, last = memExec(t, c, fmt.Sprintf("%svar v%d = rep(67108864) + \"%d\"; 0", rep, i, i)); last != nil {
			break
		}
	}
	wantQuota(t, last, "session memory")
	stillServes(t, c)
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, rssBound)
}

// TestMemorySessionVariables: a token principal binds 53,000 top-level
// names, each to a 48 KiB string (under the size charged on its own): 2.5
// GiB, ten times its 256 MiB session budget, in one exec.
func TestMemorySessionVariables(t *testing.T) {
	const rssBound = 1 << 30
	k := Start(t, Options{Flags: []string{"--session-memory", "256MiB"}, MemCap: 3 << 30})
	hb := k.Heartbeat(t)
	c := k.Attach(t, "s1", k.Token(t, "agent:evil"))
	var src strings.Builder
	src.WriteString(rep + "let piece = rep(32768) + rep(16384)\n")
	for i := range 53_000 {
		fmt.Fprintf(&src, "let v%d = piece + \"%d\"\n", i, i)
	}
	_, err := memExec(t, c, src.String())
	wantQuota(t, err, "session memory")
	stillServes(t, c)
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, rssBound)
}

// TestMemoryBigMaps: a token principal keeps maps of sixteen million items
// (about 384 MiB each; 40 of them would be 15 GiB).
func TestMemoryBigMaps(t *testing.T) {
	const rssBound = 1 << 30
	k := Start(t, Options{Flags: []string{"--session-memory", "256MiB"}, MemCap: 3 << 30})
	hb := k.Heartbeat(t)
	c := k.Attach(t, "s1", k.Token(t, "agent:evil"))
	_, err := memExec(t, c, "var keep = []; for i in 0..40 { keep = keep + [(0..16000000).map(x => x)] }; keep.len()")
	wantQuota(t, err, "session memory")
	stillServes(t, c)
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, rssBound)
}

// TestMemoryNestedTranscript: eighty values, each a 32 MiB string under a
// hundred levels of lists (2.5 GiB, ten times the session's transcript
// bound), are left in the transcript. Counted at their true size the
// oldest are evicted (their refs answer from the journal, which kept only
// the elided answer, and paths into that are UNKNOWN_REF) and memory stays
// bounded; counted as they were (nothing past depth 64) all would be kept.
func TestMemoryNestedTranscript(t *testing.T) {
	const rssBound = 1280 << 20
	k := Start(t, Options{MemCap: 4 << 30})
	hb := k.Heartbeat(t)
	c := k.Attach(t, "s1", k.Token(t, "agent:evil"))
	if _, err := memExec(t, c, rep+"let base = rep(33554432); 0"); err != nil {
		t.Fatal(err)
	}
	var refs []string
	for i := range 80 {
		res, err := memExec(t, c, fmt.Sprintf(`var x = base + "%d"; for i in 0..100 { x = [x] }; x`, i))
		if err != nil {
			t.Fatalf("exec %d: %v", i, err)
		}
		refs = append(refs, res.Ref)
	}
	// The oldest left the session; value.get of it falls back to the
	// journal, which kept the elided answer (the value is past
	// kernel.MaxJournalValue), not the 32 MiB string.
	old, err := c.ValueGet(Ctx(t), client.ValueGetParams{Ref: refs[0]})
	if err != nil {
		t.Fatalf("value.get of an evicted ref with a journal: %v", err)
	}
	if len(old.Value) > 1<<20 || !strings.Contains(string(old.Value), `"$":"ref"`) {
		t.Errorf("the evicted ref answered %d bytes; want the small elided answer the journal kept", len(old.Value))
	}
	// A path into it is UNKNOWN_REF: the journal has only the answer.
	_, err = c.ValueGet(Ctx(t), client.ValueGetParams{Ref: refs[0], Path: "[0]"})
	WantCode(t, err, proto.CodeUnknownRef)
	if _, err := c.ValueGet(Ctx(t), client.ValueGetParams{Ref: refs[len(refs)-1], Path: strings.Repeat("[0]", 50)}); err != nil {
		t.Errorf("the newest value is gone: %v", err)
	}
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, rssBound)
}

// TestMemoryConcurrentCaptures: eight owner sessions at once capture a
// command printing 100 MB each. With the default budgets all succeed and
// the kernel holds one bounded capture per session (it used to peak at
// 3.2 GB: the answer encoded the whole capture only to elide it); with an
// 8 MiB session budget, twelve times smaller than the output, each gets
// quota_exceeded.
func TestMemoryConcurrentCaptures(t *testing.T) {
	const rssBound = 512 << 20
	src := "sh { head -c 100000000 /dev/zero }"
	run := func(t *testing.T, flags []string, check func(error)) {
		k := Start(t, Options{Flags: flags, MemCap: 3 << 30})
		hb := k.Heartbeat(t)
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			c := k.Attach(t, fmt.Sprintf("cap%d", i), "")
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = memExec(t, c, src)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			check(err)
		}
		hb.Stop(t)
		k.Alive(t)
		k.WantRSSUnder(t, rssBound)
	}
	t.Run("default budgets", func(t *testing.T) {
		run(t, nil, func(err error) {
			if err != nil {
				t.Errorf("capture: %v", err)
			}
		})
	})
	t.Run("small budget", func(t *testing.T) {
		run(t, []string{"--session-memory", "8MiB"}, func(err error) { wantQuota(t, err, "session memory") })
	})
}

// TestMemoryGuard: with session budgets larger than the process's memory
// limit (so only the guard can act), a token principal keeps adding 16 MiB
// strings; near the limit the guard cancels its evaluation with
// quota_exceeded naming the kernel memory budget, before the process runs
// out of its address space. The owner's heartbeat is served throughout.
func TestMemoryGuard(t *testing.T) {
	const rssBound = 1 << 30
	k := Start(t, Options{Flags: []string{"--memory-limit", "384MiB", "--session-memory", "8GiB", "--kernel-memory", "16GiB"}, MemCap: 3 << 30})
	hb := k.Heartbeat(t)
	c := k.Attach(t, "s1", k.Token(t, "agent:evil"))
	_, err := memExec(t, c, rep+"let base = rep(16777216); var keep = []; for i in 0..1000 { keep = keep + [base + i.str()] }; keep.len()")
	if _, ok := client.ErrorCode(err); !ok {
		t.Fatalf("exec: %v; kernel stderr:\n%s", err, tail(k.Stderr(), 40))
	}
	wantQuota(t, err, "kernel memory")
	if !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("guard error %q does not say the evaluation was cancelled", err)
	}
	stillServes(t, c)
	hb.Stop(t)
	k.Alive(t)
	k.WantRSSUnder(t, rssBound)
	if !k.WaitStderr("memory guard", 5*time.Second) {
		t.Errorf("the kernel did not log the guard's action; stderr:\n%s", tail(k.Stderr(), 20))
	}
}

// TestMemoryLimitsReported: kernel.info names the active budgets.
func TestMemoryLimitsReported(t *testing.T) {
	k := Start(t, Options{Flags: []string{"--session-memory", "256MiB", "--kernel-memory", "1GiB", "--memory-limit", "2GiB"}})
	info, err := k.Client(t).KernelInfo(Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"session_memory": 256 << 20, "kernel_memory": 1 << 30, "memory_limit": 2 << 30} {
		if got := info.Limits[name]; got != want {
			t.Errorf("kernel.info limits[%q] = %d, want %d", name, got, want)
		}
	}
	for _, name := range []string{"session_transcript_bytes", "kernel_transcript_bytes"} {
		if info.Limits[name] <= 0 {
			t.Errorf("kernel.info limits has no %s", name)
		}
	}
}
