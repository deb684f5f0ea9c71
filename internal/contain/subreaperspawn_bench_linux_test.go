package contain

import (
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkSubreaperSpawn runs /bin/true as the kernel runs a command:
// through RunProcess with the subreaper on, a pidfd, the owner's thread
// waiting in ppoll on it and then reaping the child. Back to back, so the
// reaper takes every child's SIGCHLD. It reports the median from the
// fork to the reap (p50-us) and this process's CPU a spawn, its children
// not counted (cpu-us/spawn), which include the subreaper's wake-ups at
// each child's exit (docs/performance.md, "Owner spawn: the seventeenth
// round", compared two builds of the reaper with it).
//
//	go test -run '^$' -bench SubreaperSpawn -benchtime 2000x ./internal/contain/
func BenchmarkSubreaperSpawn(b *testing.B) {
	m := New(Config{Subreaper: true, Cgroups: true, Name: "shoal-bench"})
	b.Cleanup(m.Close)
	if !m.Features().Subreaper {
		b.Skip("subreaper unavailable")
	}
	s := m.NewScope()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { null.Close() })
	fd := null.Fd()
	spawn := func() error {
		pidfd := -1
		attr := &syscall.ProcAttr{Env: []string{"PATH=/usr/bin:/bin"}, Files: []uintptr{fd, fd, fd},
			Sys: &syscall.SysProcAttr{Setsid: true, PidFD: &pidfd}}
		var werr error
		err := s.RunProcess("/bin/true", []string{"/bin/true"}, attr, func(p *Proc) {
			if pidfd >= 0 {
				defer unix.Close(pidfd)
				fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
				for {
					if _, err := unix.Ppoll(fds, nil, nil); err != unix.EINTR {
						break
					}
				}
			}
			var ws syscall.WaitStatus
			for {
				_, werr = syscall.Wait4(p.Pid(), &ws, 0, nil)
				if werr != syscall.EINTR {
					break
				}
			}
		})
		if err != nil {
			return err
		}
		return werr
	}
	for range 10 {
		if err := spawn(); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	cpu0 := selfCPU()
	for b.Loop() {
		t0 := time.Now()
		if err := spawn(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	cpu := selfCPU() - cpu0
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-us")
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(lat)), "cpu-us/spawn")
}

// selfCPU is this process's user and system time, its children's not
// counted.
func selfCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
