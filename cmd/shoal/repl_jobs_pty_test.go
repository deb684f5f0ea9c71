package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// procWith finds the live process whose command line is argv (argv[0]
// compared by base name) and
// whose parent is ppid, waiting for it to appear; 0 after the timeout.
func procWith(ppid int, argv ...string) int {
	want := strings.Join(argv[1:], "\x00") + "\x00"
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			cl, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			name, rest, _ := strings.Cut(string(cl), "\x00")
			if err != nil || filepath.Base(name) != argv[0] || rest != want && !(len(argv) == 1 && rest == "") {
				continue
			}
			if st, _ := procState(pid); st != "" && procPPid(pid) == ppid {
				return pid
			}
		}
	}
	return 0
}

// procState is the state letter of pid from /proc (R, S, T, Z...), "" when
// the process is gone.
func procState(pid int) (string, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return "", errors.New("bad stat")
	}
	return s[i+2 : i+3], nil
}

func procPPid(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// waitState waits until pid's state is in want ("" for gone).
func waitState(t *testing.T, pid int, what string, want ...string) {
	t.Helper()
	var st string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		st, _ = procState(pid)
		for _, w := range want {
			if st == w {
				return
			}
		}
	}
	t.Fatalf("process %d: state %q, want %s (%v)", pid, st, what, want)
}

// startREPL builds shoal and starts it with no arguments on a pseudo
// terminal; it returns the command, the terminal, its output and send.
func startREPL(t *testing.T) (*exec.Cmd, *ptyOutput, func(string)) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals and /proc are exercised on Linux")
	}
	bin := filepath.Join(t.TempDir(), "shoal")
	if out, err := goBuild("-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "TERM=xterm",
		"XDG_CONFIG_HOME="+t.TempDir(), "SHOAL_PROMPT_LEFT=shoal> ")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 100})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = tty.Close()
	})
	out := &ptyOutput{}
	go func() { _, _ = io.Copy(out, tty) }()
	send := func(s string) {
		t.Helper()
		if _, err := tty.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	return cmd, out, send
}

// TestREPLJobControl drives a person's job control on a pseudo terminal:
// Ctrl-Z stops the foreground command and the prompt comes back with the
// job stopped in `jobs`; fg continues it with the terminal (Ctrl-C then
// reaches it), bg continues it in the background, Ctrl-Z works again
// after fg, kill %N ends a stopped job, and leaving the REPL ends the
// stopped jobs left behind. Each state is checked in /proc.
func TestREPLJobControl(t *testing.T) {
	cmd, out, send := startREPL(t)
	sleep, err := exec.LookPath("sleep") // the program, not the builtin
	if err != nil {
		t.Skip("no sleep program")
	}
	shoal := cmd.Process.Pid
	at := out.waitFor(t, 0, "shoal> ")

	// Ctrl-Z on a foreground command: stopped, prompt back, jobs says so.
	send(sleep + " 41.25\r")
	pid := procWith(shoal, "sleep", "41.25")
	if pid == 0 {
		t.Fatalf("sleep never started; terminal:\n%s", out.String()[at:])
	}
	time.Sleep(100 * time.Millisecond)
	send("\x1a")
	at = out.waitFor(t, at, "[1]  stopped  "+sleep+" 41.25")
	at = out.waitForPrompt(t, at)
	waitState(t, pid, "stopped", "T")
	send("jobs.map(.state).join(\",\") + \"|\" + jobs.map(.command).join(\",\")\r")
	at = out.waitFor(t, at, "stopped|"+sleep+" 41.25")
	at = out.waitForPrompt(t, at)
	// The shell is usable while the job is stopped.
	send("6 * 7\r")
	at = out.waitFor(t, at, "42")
	at = out.waitForPrompt(t, at)

	// Ctrl-Z while the REPL itself evaluates does not stop the shell, and
	// the statement finishes. (Here shoal leads its session, so its group
	// is orphaned and the kernel would drop a default stop anyway; under a
	// login shell it is the handler in interactive that keeps it running.)
	send("sleep 1s; 40 + 3\r")
	time.Sleep(300 * time.Millisecond)
	send("\x1a")
	at = out.waitFor(t, at, "43")
	at = out.waitForPrompt(t, at)
	if st, _ := procState(shoal); st == "T" {
		t.Fatal("Ctrl-Z stopped the shell itself")
	}

	// fg: the job runs again with the terminal; Ctrl-Z stops it again.
	send("fg\r")
	at = out.waitFor(t, at, "[1]  continued  "+sleep+" 41.25")
	waitState(t, pid, "running", "S", "R")
	send("\x1a")
	at = out.waitFor(t, at, "[1]  stopped  "+sleep+" 41.25")
	at = out.waitForPrompt(t, at)
	waitState(t, pid, "stopped", "T")

	// bg: it runs on while the prompt stays with the shell.
	send("bg %1\r")
	at = out.waitFor(t, at, "[1]  running  "+sleep+" 41.25")
	at = out.waitForPrompt(t, at)
	waitState(t, pid, "running", "S", "R")
	send("jobs.map(.state).join(\",\")\r")
	at = out.waitFor(t, at, "running")
	at = out.waitForPrompt(t, at)

	// fg %1 of the background job, then Ctrl-C reaches it, not the shell.
	send("fg %1\r")
	at = out.waitFor(t, at, "continued")
	time.Sleep(200 * time.Millisecond)
	send("\x03")
	waitState(t, pid, "gone", "")
	at = out.waitForPrompt(t, at)
	// fg waited for its end: it leaves the list without a report.
	send("4242 + jobs.len()\r")
	at = out.waitFor(t, at, "4242")
	at = out.waitForPrompt(t, at)
	for _, report := range []string{"[1] done", "[1] failed", "[1] exit"} {
		if strings.Contains(out.String()[at-200:], report) {
			t.Errorf("a job fg waited for was reported:\n%s", out.String()[at-200:])
		}
	}

	// kill %N ends a stopped job (SIGTERM reaches it although stopped).
	catProg, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat program")
	}
	send(catProg + "\r")
	catPid := procWith(shoal, "cat")
	if catPid == 0 {
		t.Fatalf("cat never started; terminal:\n%s", out.String()[at:])
	}
	time.Sleep(100 * time.Millisecond)
	send("\x1a")
	at = out.waitFor(t, at, "[2]  stopped  "+catProg)
	at = out.waitForPrompt(t, at)
	waitState(t, catPid, "stopped", "T")
	send("kill %2\r")
	waitState(t, catPid, "gone", "")
	at = out.waitForPrompt(t, at)
	// The job's task settles just after its process is gone: its end is
	// reported at the prompt after (a new prompt until it is).
	for tries := 0; ; tries++ {
		send("\r")
		from := at
		at = out.waitForPrompt(t, at)
		if strings.Contains(out.String()[from:at], "[2] cancelled  "+catProg) {
			break
		}
		if tries == 50 {
			t.Fatalf("job 2 never became cancelled; terminal:\n%s", out.String()[from:])
		}
		time.Sleep(20 * time.Millisecond)
	}

	// In value position the stopped job's task is the value.
	send("let j = (interact sleep 43.75)\r")
	valPid := procWith(shoal, "sleep", "43.75")
	if valPid == 0 {
		t.Fatalf("interact sleep never started; terminal:\n%s", out.String()[at:])
	}
	time.Sleep(100 * time.Millisecond)
	send("\x1a")
	at = out.waitFor(t, at, "[3]  stopped  sleep 43.75")
	at = out.waitForPrompt(t, at)
	send("j.id * 100 + j.desc.len()\r") // 3, "sleep 43.75"
	at = out.waitFor(t, at, "311")
	at = out.waitForPrompt(t, at)
	send("j.cancel()\r")
	waitState(t, valPid, "gone", "")
	at = out.waitForPrompt(t, at)

	// A job left stopped ends with the session.
	send(sleep + " 42.5\r")
	last := procWith(shoal, "sleep", "42.5")
	if last == 0 {
		t.Fatalf("sleep never started; terminal:\n%s", out.String()[at:])
	}
	time.Sleep(100 * time.Millisecond)
	send("\x1a")
	at = out.waitFor(t, at, "[4]  stopped  "+sleep+" 42.5")
	out.waitForPrompt(t, at)
	waitState(t, last, "stopped", "T")
	send("exit 0\r")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("shoal did not exit")
	}
	waitState(t, last, "gone", "")
}
