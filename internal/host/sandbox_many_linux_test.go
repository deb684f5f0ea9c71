//go:build linux

package host

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/contain"
	"github.com/shoalgo/shoal/internal/sandbox"
)

// hostProbeHelper makes the test binary, run as a spawned program, report
// how it is confined: `self hostProbeHelper FILE ADDR` prints one line of
// fields: its NoNewPrivs, Seccomp and CapEff from /proc/self/status, its
// cgroup, whether it read FILE and whether it connected to ADDR ("ok",
// "denied" for the OS's EACCES, or the error).
const hostProbeHelper = "__host_test_probe"

func probeHelper(file, addr string) int {
	fields := map[string]string{"NoNewPrivs": "?", "Seccomp": "?", "CapEff": "?"}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			k, v, _ := strings.Cut(line, ":")
			if _, ok := fields[k]; ok {
				fields[k] = strings.TrimSpace(v)
			}
		}
	}
	cg := "?"
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		cg = strings.TrimSpace(string(b))
	}
	outcome := func(err error) string {
		switch {
		case err == nil:
			return "ok"
		case errors.Is(err, syscall.EACCES):
			return "denied"
		default:
			return strings.ReplaceAll(err.Error(), " ", "_")
		}
	}
	_, rerr := os.ReadFile(file)
	c, derr := net.DialTimeout("tcp", addr, 10*time.Second)
	if derr == nil {
		c.Close()
	}
	fmt.Printf("nnp=%s seccomp=%s capeff=%s read=%s dial=%s cgroup=%s\n",
		fields["NoNewPrivs"], fields["Seccomp"], fields["CapEff"], outcome(rerr), outcome(derr), cg)
	return 0
}

// threadState is a thread's or process's NoNewPrivs, Seccomp and CapEff.
type threadState struct{ nnp, seccomp, capEff string }

func readThreadState(path string) (threadState, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return threadState{}, err
	}
	var s threadState
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "NoNewPrivs":
			s.nnp = v
		case "Seccomp":
			s.seccomp = v
		case "CapEff":
			s.capEff = v
		}
	}
	return s, nil
}

// confinedThreads lists the live threads of this process whose state
// is not clean.
func confinedThreads(clean threadState) ([]string, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, e := range ents {
		st, err := readThreadState("/proc/self/task/" + e.Name() + "/status")
		if errors.Is(err, os.ErrNotExist) {
			continue // ended since the listing
		}
		if err != nil {
			return nil, err
		}
		if st != clean {
			bad = append(bad, fmt.Sprintf("%s: %+v", e.Name(), st))
		}
	}
	return bad, nil
}

// TestSandboxManyConfinedBesideUnconfined is the sandbox's proof under
// load: hundreds of confined spawns, concurrently with as many unconfined
// spawns from the same process, through every spawn path and a cgroup
// scope as the kernel uses. Every confined child has no_new_privs, no
// capabilities and the socket filter, cannot read a file outside its
// grants and cannot connect to a loopback port it is not granted (it can
// to the one it is); every unconfined child has none of that; and once
// all have finished every live thread of this process is as clean as it
// started (the confined threads have ended).
func TestSandboxManyConfinedBesideUnconfined(t *testing.T) {
	needSandboxFS(t)
	netOn := sandbox.Probe().Net
	pid := os.Getpid()
	clean, err := readThreadState("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	if clean.nnp != "0" || clean.seccomp != "0" {
		t.Skipf("the test process is confined already (%+v)", clean)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	secret := t.TempDir() + "/secret"
	if err := os.WriteFile(secret, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	listen := func() (string, uint16) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		return l.Addr().String(), uint16(l.Addr().(*net.TCPAddr).Port)
	}
	grantedAddr, grantedPort := listen()
	deniedAddr, _ := listen()

	m := contain.New(contain.Config{Cgroups: true, Name: "shoal-sandboxmany"})
	t.Cleanup(m.Close)
	scope := m.NewScope()
	rules := sandbox.Rules{RestrictFS: true, ReadOnly: append(slices.Clone(sysRoots), "/proc", self),
		RestrictNet: netOn, ConnectTCP: []uint16{grantedPort}}
	confined := NewOS(AllowAll, WithProcesses(scope), WithSandbox(fixed(rules)))
	free := NewOS(AllowAll, WithProcesses(scope))
	cgroups := strings.HasPrefix(m.Features().Cgroup, "v2:")

	const each, parallel = 150, 8
	want := func(conf bool, addr string) string {
		if !conf {
			return "nnp=0 seccomp=0 capeff=" + clean.capEff + " read=ok dial=ok"
		}
		sc, dial := "0", "ok"
		if netOn {
			sc = "2"
			if addr == deniedAddr {
				dial = "denied"
			}
		}
		return "nnp=1 seccomp=" + sc + " capeff=0000000000000000 read=denied dial=" + dial
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	errs := make(chan string, 2*each)
	for i := range 2 * each {
		conf := i%2 == 0
		h, addr := free, deniedAddr
		if conf {
			h = confined
			if i%4 == 0 {
				addr = grantedAddr
			}
		}
		s := &Spawn{Argv: []string{self, hostProbeHelper, secret, addr}}
		if i%3 == 0 {
			s.Stdin = strings.NewReader("") // the os/exec path
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res, err := h.Run(context.Background(), s)
			if err != nil || statusOf(res) != 0 {
				errs <- fmt.Sprintf("spawn %d (confined %v): %+v %v", i, conf, res, err)
				return
			}
			out := strings.TrimSpace(string(res.Stdout))
			got, cg, _ := strings.Cut(out, " cgroup=")
			if w := want(conf, addr); got != w {
				errs <- fmt.Sprintf("spawn %d (confined %v, dial %s): %q, want %q (stderr %q)", i, conf, addr, got, w, res.Stderr)
			}
			if cgroups && !strings.Contains(cg, "/shoal-sandboxmany-") {
				errs <- fmt.Sprintf("spawn %d (confined %v): cgroup %q, not the scope's", i, conf, cg)
			}
		}()
	}
	wg.Wait()
	close(errs)
	n := 0
	for e := range errs {
		if n++; n <= 20 {
			t.Error(e)
		}
	}
	if n > 20 {
		t.Errorf("and %d more", n-20)
	}
	// Every confined thread ends just after its child is reaped: wait
	// for the runtime to finish them (bounded generously; not a timing
	// assertion), then every live thread must be clean.
	deadline := time.Now().Add(time.Minute)
	for {
		bad, err := confinedThreads(clean)
		if err != nil {
			t.Fatal(err)
		}
		if len(bad) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("threads of the test process still confined a minute after the last spawn: %v", bad)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// And the process itself, on whatever thread reads, still reads the
	// file and connects anywhere.
	if _, err := os.ReadFile(secret); err != nil {
		t.Errorf("the test process cannot read %s after the spawns: %v", secret, err)
	}
	if c, err := net.Dial("tcp", deniedAddr); err != nil {
		t.Errorf("the test process cannot connect to %s after the spawns: %v", deniedAddr, err)
	} else {
		c.Close()
	}
}
