package host

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shoalgo/shoal/internal/contain"
	"golang.org/x/sys/unix"
)

// directSpawn: Run forks a child with no stdin to feed itself
// (runDirect) instead of through os/exec.
const directSpawn = true

// runDirect runs prog and waits for it on the calling goroutine, with the
// containment of Run's os/exec path (the host's scope, Pdeathsig, its own
// process group, the same cancellation) but no goroutine hand-off per
// spawn: the fork happens on the calling goroutine's thread (see
// contain.Scope.RunProcess) rather than on the spawning thread, and os/exec
// copies each pipe on a goroutine of its own and opens /dev/null for
// stdin each time, and every goroutine hand-off costs a thread wake-up. Here
// stdin is one shared /dev/null descriptor, and one poll(2) loop drains
// stdout and stderr into their captures and notices the child's exit
// through its pidfd. Descendants that keep the pipes open after the child
// has exited are cut off after the wait delay, as os/exec's WaitDelay does.
// A sandboxed child is forked on t, its confined thread, instead; the
// draining and waiting stay on the calling goroutine.
func (o *OS) runDirect(ctx context.Context, t contain.Thread, prog string, argv, env []string, dir string, stdout, stderr *capture) (int, syscall.WaitStatus, error) {
	// The tail of the run before, if one waits in ctx's Later: its leaf
	// goes back to the pool before this run takes one.
	later := laterOf(ctx)
	later.Flush()
	null, err := devNull()
	if err != nil {
		return 0, 0, fmt.Errorf("run: %w", err)
	}
	// The pipes: the ones the Later made after the last answer, if any.
	outp, errp, spare := later.pipes()
	if !spare {
		if err := unix.Pipe2(outp[:], unix.O_CLOEXEC); err != nil {
			return 0, 0, fmt.Errorf("run: stdout pipe: %w", err)
		}
		if err := unix.Pipe2(errp[:], unix.O_CLOEXEC); err != nil {
			unix.Close(outp[0])
			unix.Close(outp[1])
			return 0, 0, fmt.Errorf("run: stderr pipe: %w", err)
		}
	}
	pidfd := -1
	sys := o.procAttr()
	if pidfdWorks() {
		sys.PidFD = &pidfd
	}
	attr := &syscall.ProcAttr{
		Dir:   dir,
		Env:   dedupEnv(env),
		Files: []uintptr{uintptr(null), uintptr(outp[1]), uintptr(errp[1])},
		Sys:   sys,
	}
	var (
		pid     int
		ws      syscall.WaitStatus
		werr    error
		started bool
		// With a Later, the tail: the pipes' read ends once spent, the
		// pidfd, and the child's settling (later.go).
		tail   []int
		settle func()
	)
	err = o.procs.RunProcessOn(t, prog, argv, attr, func(proc *contain.Proc) {
		started = true
		// The write ends: held until the child has exited when its exit
		// can be polled (holdWriteEndsOn), else closed now.
		held := [2]int{outp[1], errp[1]}
		outp[1], errp[1] = -1, -1
		if pidfd < 0 || !holdWriteEndsOn {
			unix.Close(held[0])
			unix.Close(held[1])
			held = [2]int{-1, -1}
		}
		pid = proc.Pid()
		g := &group{proc: proc, grace: o.killGrace}
		stop := context.AfterFunc(ctx, g.cancel)
		release := reportGroup(ctx, g)
		var spent *[]int
		if later != nil {
			tail = make([]int, 0, 3)
			spent = &tail
		}
		ws, werr = drainWait(pid, pidfd, outp[0], errp[0], &held, stdout, stderr, o.waitDelay, spent)
		stop()
		release()
		if later != nil {
			settle = g.finishLater()
		} else {
			g.finish()
		}
	})
	if !started {
		// Not started: nothing drained or closed the pipes.
		unix.Close(outp[0])
		unix.Close(outp[1])
		unix.Close(errp[0])
		unix.Close(errp[1])
	}
	if pidfd >= 0 {
		tail = append(tail, pidfd)
	}
	later.hold(tail, settle)
	if err != nil {
		return 0, 0, fmt.Errorf("run: %w", &os.PathError{Op: "fork/exec", Path: prog, Err: err})
	}
	if werr != nil {
		return 0, 0, fmt.Errorf("run %s: %w", prog, werr)
	}
	return pid, ws, nil
}

// noPidfdPoll is how often drainWait looks for the child's exit when the
// kernel gives no pidfd to poll.
const noPidfdPoll = 50 * time.Millisecond

var drainBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// drainWait copies the pipes outfd and errfd into out and errc until both
// reach end of file, reaps pid, and closes both descriptors. Once the
// child has exited (its pidfd is readable) it waits at most delay for the
// pipes to close before it cuts them off. held are the pipes' write ends
// when the caller kept them open (holdWriteEndsOn), -1 otherwise: closed
// once the child has exited, and on every return. With spent, a pipe read
// to its end is appended there for the caller to close (later.go) rather
// than closed; one cut off or left on an error is closed here.
func drainWait(pid, pidfd, outfd, errfd int, held *[2]int, out, errc *capture, delay time.Duration, spent *[]int) (syscall.WaitStatus, error) {
	closeHeld := func() {
		for i, fd := range held {
			if fd >= 0 {
				unix.Close(fd)
				held[i] = -1
			}
		}
	}
	defer closeHeld()
	bp := drainBufs.Get().(*[]byte)
	defer drainBufs.Put(bp)
	buf := *bp
	fds := [3]unix.PollFd{{Fd: int32(outfd), Events: unix.POLLIN}, {Fd: int32(errfd), Events: unix.POLLIN}, {Fd: int32(pidfd), Events: unix.POLLIN}}
	sinks := [2]*capture{out, errc}
	open := 2
	var ws syscall.WaitStatus
	exited := false
	var deadline time.Time
	for open > 0 {
		timeout := -1
		if exited {
			left := time.Until(deadline)
			if left <= 0 {
				break // the wait delay has passed: cut the pipes off
			}
			timeout = int((left + time.Millisecond - 1) / time.Millisecond)
		} else if pidfd < 0 {
			timeout = int(noPidfdPoll / time.Millisecond)
		}
		n, err := unix.Poll(fds[:], timeout)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			closeFds(fds[:2])
			if !exited {
				ws, _ = reap(pid)
			}
			return ws, fmt.Errorf("poll: %w", err)
		}
		for i := range sinks {
			if fds[i].Fd < 0 || fds[i].Revents == 0 {
				continue
			}
			k, err := unix.Read(int(fds[i].Fd), buf)
			if k > 0 {
				sinks[i].Write(buf[:k])
				continue
			}
			if err == unix.EINTR || err == unix.EAGAIN {
				continue
			}
			if spent != nil && err == nil {
				*spent = append(*spent, int(fds[i].Fd))
			} else {
				unix.Close(int(fds[i].Fd))
			}
			fds[i].Fd = -1
			open--
		}
		if exited {
			continue
		}
		if fds[2].Revents != 0 || (pidfd < 0 && n == 0) {
			w, err := unix.Wait4(pid, (*unix.WaitStatus)(&ws), unix.WNOHANG, nil)
			if err != nil && err != unix.EINTR {
				closeFds(fds[:2])
				return ws, fmt.Errorf("wait: %w", err)
			}
			if w == pid {
				exited = true
				fds[2].Fd = -1
				deadline = time.Now().Add(delay)
				// Now the pipes can reach end of file: at once, unless
				// a descendant holds them.
				closeHeld()
			}
		}
	}
	closeFds(fds[:2])
	if exited {
		return ws, nil
	}
	return reap(pid)
}

// reap waits for pid to exit.
func reap(pid int) (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	for {
		_, err := unix.Wait4(pid, (*unix.WaitStatus)(&ws), 0, nil)
		if err != unix.EINTR {
			if err != nil {
				return ws, fmt.Errorf("wait: %w", err)
			}
			return ws, nil
		}
	}
}

func closeFds(fds []unix.PollFd) {
	for i := range fds {
		if fds[i].Fd >= 0 {
			unix.Close(int(fds[i].Fd))
			fds[i].Fd = -1
		}
	}
}

// devNull is one read-only /dev/null descriptor, opened once and shared
// as every direct child's stdin (close-on-exec here; the child gets its
// own copy as descriptor 0). This and pidfdWorks use a sync.Once: a
// sync.OnceValue's closure would be made by a package initialiser at every
// start.
func devNull() (int, error) {
	devNullOnce.Do(func() {
		fd, err := unix.Open(os.DevNull, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			devNullOnce.fd, devNullOnce.err = -1, fmt.Errorf("open %s: %w", os.DevNull, err)
			return
		}
		devNullOnce.fd = fd
	})
	return devNullOnce.fd, devNullOnce.err
}

var devNullOnce struct {
	sync.Once
	fd  int
	err error
}

// pidfdWorks reports whether the kernel gives pidfds (Linux 5.3 and
// later), which clone then returns for each child.
func pidfdWorks() bool {
	pidfdOnce.Do(func() {
		fd, err := unix.PidfdOpen(os.Getpid(), 0)
		if err != nil {
			return
		}
		unix.Close(fd)
		pidfdOnce.works = true
	})
	return pidfdOnce.works
}

var pidfdOnce struct {
	sync.Once
	works bool
}

// dedupEnv keeps the last of each KEY=, as os/exec does, so a child sees
// the value the session's own lookups do; an entry without '=' is kept
// as it is. It copies only when a key repeats.
func dedupEnv(env []string) []string {
	dup := false
	for i := 1; i < len(env) && !dup; i++ {
		dup = repeats(env[i], env[:i])
	}
	if !dup {
		return env
	}
	out := make([]string, 0, len(env))
	for i, kv := range env {
		if !repeats(kv, env[i+1:]) {
			out = append(out, kv)
		}
	}
	return out
}

// repeats reports whether kv's key is the key of an entry of others.
func repeats(kv string, others []string) bool {
	k := strings.IndexByte(kv, '=')
	if k < 0 {
		return false
	}
	for _, o := range others {
		if len(o) > k && o[k] == '=' && o[:k] == kv[:k] {
			return true
		}
	}
	return false
}
