//go:build linux

package hostile

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"golang.org/x/sys/unix"
)

// Idle-descriptor attack bounds, stated once.
const (
	idleFDsBound  = 12      // --idle-fds in TestHostileIdleFDsBound
	idleFDsMemCap = 2 << 30 // RLIMIT_AS of the kernel
	// idleFDsSlack is what may be open beyond the budget once every
	// answer is in: the last exec's tail, if its Flush has not run yet
	// (two spent pipe ends and a pidfd, and the two descriptors of the
	// leaf it gives back), and three for the runtime's own (a pidfd
	// probe, a timer or an epoll descriptor made on the way).
	idleFDsSlack = 8
	// idlePerSession is the most one session keeps for reuse: four empty
	// cgroup leaves of two descriptors and four for its spare pipes.
	idlePerSession = 12
)

// kernelFDs counts the kernel process's open descriptors.
func (k *Kernel) kernelFDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(k.Pid) + "/fd")
	if err != nil {
		t.Fatalf("kernel descriptors: %v", err)
	}
	return len(ents)
}

// fdsSettle waits until the kernel holds at most want descriptors (the
// last answers' tails run just after the answers are sent) and returns the
// count: the last one read when it never gets there.
func (k *Kernel) fdsSettle(t testing.TB, want int) int {
	t.Helper()
	n := k.kernelFDs(t)
	for i := 0; i < 100 && n > want; i++ {
		time.Sleep(20 * time.Millisecond)
		n = k.kernelFDs(t)
	}
	return n
}

// spawnIn attaches c to session name (as the owner) and runs one program
// there, failing the test unless it ran and exited 0.
func spawnIn(t *testing.T, c *client.Client, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(Ctx(t), 30*time.Second)
	defer cancel()
	if _, err := c.Attach(ctx, client.AttachParams{Session: name}); err != nil {
		t.Fatalf("attach %s: %v", name, err)
	}
	res, err := c.Exec(ctx, client.ExecParams{Src: `(^/bin/true).status`})
	if err != nil {
		t.Fatalf("spawn in %s: %v", name, err)
	}
	if got := string(res.Value); got != `{"$":"int","v":0}` {
		t.Fatalf("spawn in %s answered %s", name, got)
	}
}

// TestHostileIdleFDsBound: with --idle-fds 12, sessions that would keep
// twenty times that many descriptors for reuse (40 sessions, each left
// idle after spawns that give it a cgroup leaf and spare pipes to keep,
// six descriptors a session) keep no more than the budget between them:
// the kernel's open descriptors stay within what it had before plus the
// budget and a stated slack; every spawn succeeds, in sessions past the
// budget too, and the owner's heartbeat is answered throughout.
func TestHostileIdleFDsBound(t *testing.T) {
	const sessions = 40
	k := Start(t, Options{MemCap: idleFDsMemCap, Flags: []string{"--idle-fds", fmt.Sprint(idleFDsBound)}})
	hb := k.Heartbeat(t)
	c := k.Client(t)
	// The first spawn opens what every later one shares (the null device,
	// the spawning machinery), and its own session's leaf and spares are
	// charged: it is left in the baseline, charged to the budget.
	spawnIn(t, c, "warm")
	base := k.fdsSettle(t, 0)
	for i := range sessions {
		spawnIn(t, c, fmt.Sprintf("idle%d", i))
		spawnIn(t, c, fmt.Sprintf("idle%d", i)) // takes its spares, keeps new ones
	}
	limit := base + idleFDsBound + idleFDsSlack
	got := k.fdsSettle(t, limit)
	t.Logf("kernel descriptors: %d after the warm-up, %d after %d idle sessions (bound %d + %d slack; unbounded they would keep %d more)",
		base, got, sessions, idleFDsBound, idleFDsSlack, sessions*6)
	if got > limit {
		t.Errorf("the kernel holds %d descriptors after %d idle sessions, want at most %d (baseline %d + --idle-fds %d + slack %d)",
			got, sessions, limit, base, idleFDsBound, idleFDsSlack)
	}
	// Sessions past the budget still spawn: the next spawn makes its own
	// pipes and leaf.
	spawnIn(t, c, "idle0")
	spawnIn(t, c, fmt.Sprintf("idle%d", sessions-1))
	hb.Stop(t)
	k.Alive(t)
}

// TestHostileLaterFDsAtSessionLimit: what sessions keep between spawns
// (host.Later's pending tail and spare pipes, the scope's free leaves) is
// bounded by the session bound too: the owner, at --owner-sessions 6 and
// the default --idle-fds, attaches ten times that many sessions, each
// spawning when it is let in; those past the bound are refused with
// owner_sessions and nothing of theirs is kept, and the kernel's
// descriptors stay within the bound's sessions' worth.
func TestHostileLaterFDsAtSessionLimit(t *testing.T) {
	const bound = 6
	k := Start(t, Options{MemCap: idleFDsMemCap, Flags: []string{"--owner-sessions", fmt.Sprint(bound)}})
	c := k.Client(t)
	spawnIn(t, c, "warm") // one of the bound, counted in the baseline
	base := k.fdsSettle(t, 0)
	refused := 0
	for i := range 10 * bound {
		ctx, cancel := attachCtx(t)
		_, err := c.Attach(ctx, client.AttachParams{Session: fmt.Sprintf("s%d", i)})
		cancel()
		if err != nil {
			wantRefusal(t, err, "owner_sessions", bound)
			refused++
			continue
		}
		spawnIn(t, c, fmt.Sprintf("s%d", i))
		// A second program at once beside a first: two leaves to keep.
		ctx, cancel = context.WithTimeout(Ctx(t), 30*time.Second)
		_, err = c.Exec(ctx, client.ExecParams{Src: `parallel(() => (^/bin/sleep 0.05).status, () => (^/bin/sleep 0.05).status)`})
		cancel()
		if err != nil {
			t.Fatalf("two spawns at once in s%d: %v", i, err)
		}
	}
	if want := 10*bound - (bound - 1); refused != want {
		t.Errorf("%d attaches refused, want %d", refused, want)
	}
	limit := base + (bound-1)*idlePerSession + idleFDsSlack
	got := k.fdsSettle(t, limit)
	t.Logf("kernel descriptors: %d with one session, %d with %d (bound %d)", base, got, bound, limit)
	if got > limit {
		t.Errorf("the kernel holds %d descriptors with %d sessions, want at most %d", got, bound, limit)
	}
	k.Alive(t)
}

// TestHostileSpawnOutOfDescriptors: a kernel whose descriptor table is
// full (its RLIMIT_NOFILE lowered to what it has open plus a few) answers
// a spawn that cannot get its pipes with a typed error and stays up;
// requests that need no descriptor are still answered, and once the table
// has room again spawns succeed.
func TestHostileSpawnOutOfDescriptors(t *testing.T) {
	k := Start(t, Options{MemCap: idleFDsMemCap})
	owner := k.Owner(t)
	spawnIn(t, owner, "owner")
	var old unix.Rlimit
	if err := unix.Prlimit(k.Pid, unix.RLIMIT_NOFILE, nil, &old); err != nil {
		t.Skipf("prlimit: %v", err)
	}
	full := uint64(k.kernelFDs(t) + 1)
	if err := unix.Prlimit(k.Pid, unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: full, Max: old.Max}, nil); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	failed := 0
	for i := range 20 {
		ctx, cancel := context.WithTimeout(Ctx(t), 30*time.Second)
		_, err := owner.Exec(ctx, client.ExecParams{Src: `(^/bin/true).status`})
		cancel()
		if err == nil {
			continue
		}
		failed++
		if i == 0 || failed == 1 {
			t.Logf("spawn with a full table: %v", err)
		}
		WantLangCode(t, err, "io_error")
	}
	if failed == 0 {
		t.Error("every spawn succeeded with the descriptor table full")
	}
	ctx, cancel := context.WithTimeout(Ctx(t), 30*time.Second)
	res, err := owner.Exec(ctx, client.ExecParams{Src: "1 + 1"})
	cancel()
	if err != nil || string(res.Value) != `{"$":"int","v":2}` {
		t.Errorf("exec 1 + 1 with the table full: %s %v", res.Value, err)
	}
	k.Alive(t)
	if err := unix.Prlimit(k.Pid, unix.RLIMIT_NOFILE, &old, nil); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	for range 3 {
		spawnIn(t, owner, "owner")
	}
	// New connections are accepted again too.
	spawnIn(t, k.Client(t), "after")
	k.Alive(t)
}
