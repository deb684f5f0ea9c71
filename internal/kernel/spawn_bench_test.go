package kernel

import (
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkKernelSpawn is issue 9's second process figure: one `exec
// "^/bin/true"` through the kernel, the whole round trip on a Unix socket
// (decode, session turn, evaluation, contained spawn and wait, outcome,
// reply), beside its floor in the same iteration: one round trip to a
// bare Unix-socket JSON echo server plus one bare syscall.ForkExec + Wait4
// of the same program. The two sides take turns going first. It reports
// each side's mean time per spawn, their ratio, and the ratio of the two
// sides' median times:
//
//	go test -run '^$' -bench KernelSpawn -count 5 ./internal/kernel/
func BenchmarkKernelSpawn(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skipf("true not available: %v", err)
	}
	kc, err := dialRaw(loadKernel(b), "spawn")
	if err != nil {
		b.Fatal(err)
	}
	defer kc.Close()
	fc, err := dialRaw(startEchoFloor(b), "spawn")
	if err != nil {
		b.Fatal(err)
	}
	defer fc.Close()
	null, err := syscall.Open("/dev/null", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer syscall.Close(null)
	fd := uintptr(null)
	attr := &syscall.ProcAttr{Env: []string{"PATH=/usr/bin:/bin"}, Files: []uintptr{fd, fd, fd}, Sys: &syscall.SysProcAttr{Setpgid: true}}
	argv := []string{truePath}
	params := []byte(`{"src":` + strconv.Quote("^"+truePath) + `}`)
	id := 10
	kernel := func() (time.Duration, error) {
		id++
		start := time.Now()
		resp, err := kc.call(id, "exec", params)
		if err != nil {
			return 0, err
		}
		if resp.Error != nil {
			return 0, fmt.Errorf("exec: error %d %s", resp.Error.Code, resp.Error.Message)
		}
		return time.Since(start), nil
	}
	floor := func() (time.Duration, error) {
		id++
		start := time.Now()
		if _, err := fc.call(id, "exec", params); err != nil {
			return 0, err
		}
		pid, err := syscall.ForkExec(truePath, argv, attr)
		if err != nil {
			return 0, err
		}
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || ws.ExitStatus() != 0 {
			return 0, fmt.Errorf("wait4: %v, status %v", err, ws)
		}
		return time.Since(start), nil
	}
	var kt, ft time.Duration
	var kall, fall []time.Duration
	first := true
	for b.Loop() {
		sides := [2]func() (time.Duration, error){kernel, floor}
		sums := [2]*time.Duration{&kt, &ft}
		if !first {
			sides[0], sides[1], sums[0], sums[1] = floor, kernel, &ft, &kt
		}
		for i, side := range sides {
			d, err := side()
			if err != nil {
				b.Fatal(err)
			}
			*sums[i] += d
			if sums[i] == &kt {
				kall = append(kall, d)
			} else {
				fall = append(fall, d)
			}
		}
		first = !first
	}
	n := float64(b.N)
	b.ReportMetric(float64(kt.Nanoseconds())/n, "kernel-ns/spawn")
	b.ReportMetric(float64(ft.Nanoseconds())/n, "floor-ns/spawn")
	b.ReportMetric(float64(kt)/float64(ft), "kernel/floor")
	// The medians, which a load spike on a shared machine moves less.
	slices.Sort(kall)
	slices.Sort(fall)
	if len(kall) > 0 && len(fall) > 0 {
		km, fm := kall[len(kall)/2], fall[len(fall)/2]
		b.ReportMetric(float64(km)/float64(fm), "median-kernel/floor")
	}
}
