//go:build linux

package hostile

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/memlimit"
)

// The memory bomb with default flags: the kernel's memory bounds come
// from its address-space cap, not from figures for a 24 GiB machine.

// bombCap is the address-space cap of these tests: 4,000,000,000 bytes,
// as `prlimit --as=4000000000` sets it.
const bombCap = 4_000_000_000

// bombList is the exec that makes a list of sixteen million integers and
// keeps it bound under name (about 384 MB charged).
func bombList(name string) string {
	return fmt.Sprintf("let %s = (0..16000000).collect(); %s.len()", name, name)
}

// bombListBytes is what one such list is charged (24 bytes an item).
const bombListBytes = 16_000_000 * 24

// startBombKernel starts a kernel with default flags under bombCap and
// checks that kernel.info reports the memory bounds derived from that cap
// and a pure-Go build. It returns the kernel and the derived bounds.
func startBombKernel(t *testing.T) (*Kernel, *client.KernelMemory) {
	t.Helper()
	k := Start(t, Options{MemCap: bombCap})
	info, err := k.Client(t).KernelInfo(Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if info.Cgo == nil || *info.Cgo {
		t.Errorf("kernel.info cgo = %v, want false: the harness builds with CGO_ENABLED=0", info.Cgo)
	}
	m := info.Memory
	if m == nil {
		t.Fatal("kernel.info has no memory")
	}
	// The harness's own cgroup and machine are the kernel's; only the cap
	// differs.
	facts := memlimit.Detect()
	facts.RlimitAS = bombCap
	want := memlimit.Derive(facts)
	t.Logf("kernel.info memory: %+v", *m)
	if m.Source != want.Source || m.Limit != want.Limit || m.Usable != want.Usable {
		t.Errorf("memory source %s limit %d usable %d, want %s %d %d", m.Source, m.Limit, m.Usable, want.Source, want.Limit, want.Usable)
	}
	if m.SessionBudget != want.SessionBudget || m.KernelBudget != want.KernelBudget || m.SoftLimit != want.SoftLimit {
		t.Errorf("bounds in force: session %d kernel %d soft %d, want %d %d %d",
			m.SessionBudget, m.KernelBudget, m.SoftLimit, want.SessionBudget, want.KernelBudget, want.SoftLimit)
	}
	if m.Source == memlimit.SourceRlimitAS && m.Limit != bombCap {
		t.Errorf("memory limit %d, want the cap %d", m.Limit, bombCap)
	}
	if info.Limits["session_memory"] != int(m.SessionBudget) || info.Limits["memory_limit"] != int(m.SoftLimit) {
		t.Errorf("limits %v disagree with memory %+v", info.Limits, *m)
	}
	return k, m
}

// bombResult tallies a bomb's execs: each kept its list or was refused
// with quota_exceeded; anything else fails the test.
type bombResult struct {
	mu      sync.Mutex
	kept    int
	refused int
}

func (r *bombResult) add(t *testing.T, res *client.ExecResult, err error) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		if got := strings.ReplaceAll(string(res.Value), " ", ""); got != `{"$":"int","v":16000000}` {
			t.Errorf("a kept list answered %s", got)
		}
		r.kept++
		return
	}
	if _, ok := client.ErrorCode(err); !ok {
		t.Errorf("exec failed without a typed error (the kernel died?): %v", err)
		return
	}
	msg := WantLangCode(t, err, "quota_exceeded")
	if !strings.Contains(msg, "session memory") && !strings.Contains(msg, "kernel memory") {
		t.Errorf("quota error %q names neither memory budget", msg)
	}
	r.refused++
}

// finishBomb checks the kernel after a bomb: alive, the owner served, the
// attacker's session answering, and the peak resident set under the
// usable memory derived from the cap.
func finishBomb(t *testing.T, k *Kernel, hb *Heartbeat, c *client.Client, m *client.KernelMemory, r *bombResult) {
	t.Helper()
	stillServes(t, c)
	hb.Stop(t)
	k.Alive(t)
	t.Logf("lists kept %d, refused %d; VmPeak %d MiB", r.kept, r.refused, statusField(t, k.Pid, "VmPeak")>>20)
	if r.refused == 0 {
		t.Errorf("no exec was refused: 40 lists of 384 MB fit budgets derived from a 4 GB cap?")
	}
	k.WantRSSUnder(t, m.Usable)
}

// TestMemoryBombSequentialDefaults: a token principal runs 40 execs in one
// session, each keeping a list of sixteen million integers bound (15 GB
// in all), against a kernel started with default flags under a 4 GB
// address-space cap. Each exec keeps its list or gets quota_exceeded; no
// more lists are kept than the derived session budget holds; the kernel
// lives, the owner's heartbeat is served throughout, and the kernel's peak
// RSS stays under the derived usable memory.
func TestMemoryBombSequentialDefaults(t *testing.T) {
	k, m := startBombKernel(t)
	hb := k.Heartbeat(t)
	c := k.Attach(t, "bomb", k.Token(t, "agent:bomb"))
	var r bombResult
	for i := range 40 {
		res, err := memExec(t, c, bombList(fmt.Sprintf("xs%d", i)))
		r.add(t, res, err)
		k.Alive(t)
	}
	if max := int(m.SessionBudget / bombListBytes); r.kept > max {
		t.Errorf("%d lists kept in one session; the %d-byte session budget holds %d", r.kept, m.SessionBudget, max)
	}
	finishBomb(t, k, hb, c, m, &r)
}

// TestMemoryBombConcurrentDefaults: the same 40 execs spread over eight
// sessions of one token principal running at once (five each, every list
// kept bound), under the same cap with default flags. No more lists are
// kept in all than the derived kernel budget holds.
func TestMemoryBombConcurrentDefaults(t *testing.T) {
	k, m := startBombKernel(t)
	hb := k.Heartbeat(t)
	token := k.Token(t, "agent:bomb")
	var r bombResult
	var wg sync.WaitGroup
	clients := make([]*client.Client, 8)
	for s := range clients {
		clients[s] = k.Attach(t, fmt.Sprintf("bomb%d", s), token)
	}
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				res, err := memExec(t, c, bombList(fmt.Sprintf("xs%d", i)))
				r.add(t, res, err)
			}
		}()
	}
	wg.Wait()
	if max := int(m.KernelBudget / bombListBytes); r.kept > max {
		t.Errorf("%d lists kept in all; the %d-byte kernel budget holds %d", r.kept, m.KernelBudget, max)
	}
	finishBomb(t, k, hb, clients[0], m, &r)
}
