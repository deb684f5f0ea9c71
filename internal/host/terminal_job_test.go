//go:build linux

package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// TestTerminalJob runs TestTerminalJobHelper in a session of its own whose
// controlling terminal is a pseudo terminal, as the REPL runs: only such a
// process can hand the terminal to a child's group and take it back.
func TestTerminalJob(t *testing.T) {
	if os.Getenv("SHOAL_TTY_HELPER") != "" {
		t.Skip("inside the helper")
	}
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	go func() { _, _ = io.Copy(io.Discard, master) }()
	report := t.TempDir() + "/report"
	cmd := exec.Command(os.Args[0], "-test.run=^TestTerminalJobHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SHOAL_TTY_HELPER="+report)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("helper hung")
	}
	data, rerr := os.ReadFile(report)
	if rerr != nil || strings.TrimSpace(string(data)) != "ok" {
		t.Fatalf("helper (%v): %s (%v)", err, data, rerr)
	}
}

// TestTerminalJobHelper is the helper's body (it does nothing in a normal
// run): it writes "ok" or what went wrong to the report file.
func TestTerminalJobHelper(t *testing.T) {
	report := os.Getenv("SHOAL_TTY_HELPER")
	if report == "" {
		t.Skip("run by TestTerminalJob")
	}
	msg := "ok"
	if err := terminalJobChecks(newOS(AllowAll)); err != nil {
		msg = err.Error()
	} else if o := sandboxTerminalHost(); o != nil {
		// The same again with every program confined: forking on a
		// confined thread keeps the terminal's foreground, stops and
		// modes intact.
		if err := terminalJobChecks(o); err != nil {
			msg = "sandboxed: " + err.Error()
		}
	}
	if err := os.WriteFile(report, []byte(msg+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func terminalJobChecks(o *OS) error {
	sh, err := exec.LookPath("sh")
	if err != nil {
		return err
	}
	const tty = 0
	ctx := context.Background()
	ours := unix.Getpgrp()
	owner := func(when string) error {
		pg, err := unix.IoctlGetInt(tty, unix.TIOCGPGRP)
		if err != nil || pg != ours {
			return fmt.Errorf("%s: terminal's group %d (%v), want ours %d", when, pg, err, ours)
		}
		return nil
	}
	echo := func(when string, want bool) error {
		tm, err := unix.IoctlGetTermios(tty, unix.TCGETS)
		if err != nil {
			return err
		}
		if got := tm.Lflag&unix.ECHO != 0; got != want {
			return fmt.Errorf("%s: echo %v, want %v", when, got, want)
		}
		return nil
	}
	setEcho := func() error {
		tm, err := unix.IoctlGetTermios(tty, unix.TCGETS)
		if err != nil {
			return err
		}
		tm.Lflag |= unix.ECHO
		return unix.IoctlSetTermios(tty, unix.TCSETS, tm)
	}

	// The child has the terminal as its three standard descriptors and
	// no other: the job's duplicate of it is close-on-exec, so it is not
	// a fourth descriptor of the child (nor of any other command started
	// while the job lives). Looked at while the child is stopped.
	ttyName, err := os.Readlink("/proc/self/fd/0")
	if err != nil {
		return err
	}
	res, err := o.RunTerminal(ctx, &Spawn{Argv: []string{sh, "-c", `kill -STOP $$; exit 0`}}, tty)
	if err != nil {
		return err
	}
	if res.Stopped == nil {
		return fmt.Errorf("descriptor check: result %+v, want a stopped job", res)
	}
	fdDir := "/proc/" + strconv.Itoa(res.Stopped.Pid()) + "/fd"
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name() == "0" || e.Name() == "1" || e.Name() == "2" {
			continue
		}
		if target, _ := os.Readlink(fdDir + "/" + e.Name()); target == ttyName {
			return fmt.Errorf("the child holds the terminal as descriptor %s too", e.Name())
		}
	}
	if err := res.Stopped.Foreground(); err != nil {
		return err
	}
	if _, _, err := res.Stopped.Wait(ctx); err != nil {
		return err
	}

	// A stop comes back as a job; the terminal and our modes come back
	// with it. Foreground restores the job's modes and continues it.
	if err := setEcho(); err != nil {
		return err
	}
	res, err = o.RunTerminal(ctx, &Spawn{Argv: []string{sh, "-c",
		`stty -echo; kill -STOP $$; if stty -a | tr ' ;' '\n\n' | grep -qx -- -echo; then exit 7; fi; exit 8`}}, tty)
	if err != nil {
		return err
	}
	j := res.Stopped
	if j == nil || res.Status != nil || res.Signal != "" {
		return fmt.Errorf("stop: result %+v, want a stopped job", res)
	}
	if err := owner("after the stop"); err != nil {
		return err
	}
	if err := echo("after the stop", true); err != nil {
		return err
	}
	if st := procStateOf(j.Pid()); st != "T" {
		return fmt.Errorf("stopped job in state %q", st)
	}
	if err := j.Foreground(); err != nil {
		return err
	}
	res, stopped, err := j.Wait(ctx)
	if err != nil || stopped {
		return fmt.Errorf("fg wait: stopped %v, %v", stopped, err)
	}
	if res.Status == nil || *res.Status != 7 {
		code := -1
		if res.Status != nil {
			code = *res.Status
		}
		return fmt.Errorf("fg: status %d signal %q, want 7 (the job's own modes back)", code, res.Signal)
	}
	if err := owner("after fg"); err != nil {
		return err
	}
	if err := echo("after fg", true); err != nil {
		return err
	}
	if err := j.Foreground(); !errors.Is(err, ErrJobEnded) {
		return fmt.Errorf("fg of an ended job: %v", err)
	}

	// Continued in the background, a job that reads the terminal stops
	// again (SIGTTIN) and Wait reports it.
	res, err = o.RunTerminal(ctx, &Spawn{Argv: []string{sh, "-c", `kill -STOP $$; read x`}}, tty)
	if err != nil || res.Stopped == nil {
		return fmt.Errorf("second stop: %+v %v", res, err)
	}
	j = res.Stopped
	if err := j.Group().Resume(); err != nil {
		return err
	}
	if _, stopped, err = j.Wait(ctx); err != nil || !stopped {
		return fmt.Errorf("background read: stopped %v, %v; want a stop", stopped, err)
	}
	if err := owner("after the background stop"); err != nil {
		return err
	}

	// Cancelling the wait of a stopped job ends its whole tree.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	pid := j.Pid()
	if res, stopped, err = j.Wait(cctx); err != nil || stopped || res.Signal == "" {
		return fmt.Errorf("cancelled wait: %+v stopped %v %v", res, stopped, err)
	}
	if st := procStateOf(pid); st != "" {
		return fmt.Errorf("cancelled job still in state %q", st)
	}
	return owner("at the end")
}

// procStateOf is pid's state letter from /proc, "" when it is gone.
func procStateOf(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+3 > len(s) {
		return ""
	}
	return s[i+2 : i+3]
}
