package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/diewithparent"
	"github.com/shoalgo/shoal/internal/value"
)

// binDir is where builtBinaries put them, removed when the tests end.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// builtBinaries builds shoal and shoal-kernel once per test run.
var builtBinaries = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "shoal-bin")
	if err != nil {
		return "", err
	}
	binDir = dir
	// One go build for both: they share their dependencies' work.
	out, err := goBuild("-o", dir+"/", ".", "../shoal-kernel").CombinedOutput()
	if err != nil {
		return "", &buildError{err, string(out)}
	}
	return dir, nil
})

// builtNoGrace builds, once per test run, a shoal whose standalone scripts
// never reach the signal grace (the shoaltest_nograce tag,
// signals_nograce.go): only the host's hook takes their signals over.
var builtNoGrace = sync.OnceValues(func() (string, error) {
	dir, err := builtBinaries()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "nograce", "shoal")
	out, err := goBuild("-tags", "shoaltest_nograce", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", &buildError{err, string(out)}
	}
	return bin, nil
})

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }

// binaries returns the directory holding the built shoal and shoal-kernel.
func binaries(t *testing.T) string {
	t.Helper()
	dir, err := builtBinaries()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// startKernel starts the built shoal-kernel on a socket of its own in a
// private state directory and returns the socket; the kernel is stopped
// with SIGTERM when the test ends.
func startKernel(t *testing.T) string {
	t.Helper()
	sock, _ := startKernelState(t)
	return sock
}

// startKernelState is startKernel, also returning the state directory.
func startKernelState(t *testing.T) (sock, state string) {
	t.Helper()
	run := shortDir(t)
	state = t.TempDir()
	return launchKernel(t, run, "--socket", filepath.Join(run, "k.sock"), "--state-dir", state), state
}

// TestRemoteRun runs -c, scripts and stdin in a session of a real kernel
// and checks what is printed and the exit status, against what the same
// source gives standalone: the reference's CLI table holds either way.
func TestRemoteRun(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's end-to-end tests run on Linux")
	}
	sock := startKernel(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "s.shl")
	if err := os.WriteFile(script, []byte(`echo (args.len()); args`), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		args       []string
		stdin      string
		code       int
		out, noOut string
		errText    string
	}{
		{name: "value", args: []string{"-c", "1 + 2"}, out: "3\n"},
		{name: "output then value", args: []string{"-c", "echo hi; [1, 2].len()"}, out: "hi\n2\n"},
		{name: "builtin outcome shown", args: []string{"-c", "echo bye"}, out: "bye\n"},
		{name: "external output once", args: []string{"-c", "^sh -c 'echo ext'"}, out: "ext\n"},
		{name: "null prints nothing", args: []string{"-c", "sleep 1ms"}, out: ""},
		{name: "parse error exits 2", args: []string{"-c", "1 +"}, code: 2, errText: "error[parse_error]"},
		{name: "language error exits 1", args: []string{"-c", `1 + "a"`}, code: 1, errText: "error[type_error]"},
		{name: "child status", args: []string{"-c", "^sh -c 'exit 7'"}, code: 7, errText: "error[cmd_failed]"},
		{name: "exit N", args: []string{"-c", "exit 5"}, code: 5},
		{name: "exit 0 after output", args: []string{"-c", "echo a; exit 0"}, out: "a\n"},
		{name: "script args", args: []string{script, "a", "b'{c}\"", "x y"}, out: "3\n0  a\n1  b'{c}\"\n2  x y\n"},
		{name: "stdin", args: nil, stdin: "let z = 20\nz + 22\n", out: "42\n"},
		{name: "session kept between runs", args: []string{"-c", "let kept = 9"}, out: ""},
		{name: "session kept, read", args: []string{"-c", "kept * 2"}, out: "18\n"},
		{name: "other session", args: []string{"--session", "other", "-c", "kept"}, code: 127, noOut: "18"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"--kernel", sock}, tc.args...)
			code := run(context.Background(), args, strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != tc.code && !(tc.name == "other session" && code != 0) {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tc.code, stdout.String(), stderr.String())
			}
			if tc.noOut == "" && stdout.String() != tc.out {
				t.Errorf("stdout %q, want %q (stderr %q)", stdout.String(), tc.out, stderr.String())
			}
			if tc.noOut != "" && strings.Contains(stdout.String(), tc.noOut) {
				t.Errorf("stdout %q holds %q: sessions leaked", stdout.String(), tc.noOut)
			}
			if !strings.Contains(stderr.String(), tc.errText) {
				t.Errorf("stderr %q, want it to hold %q", stderr.String(), tc.errText)
			}
		})
	}
}

// TestRemoteNoKernel: a socket with no kernel is one clear line naming
// it and how to start one, exit 1.
func TestRemoteNoKernel(t *testing.T) {
	var stdout, stderr bytes.Buffer
	sock := filepath.Join(t.TempDir(), "none.sock")
	code := run(context.Background(), []string{"--kernel", sock, "-c", "1"}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), sock) || !strings.Contains(stderr.String(), "shoal kernel") {
		t.Fatalf("exit %d stderr %q", code, stderr.String())
	}
	if strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("want one line, got %q", stderr.String())
	}
}

// TestQuoteShoal: every string comes back as itself through the
// language's parser and evaluator (run standalone here; the kernel runs
// the same code).
func TestQuoteShoal(t *testing.T) {
	for _, s := range []string{"", "plain", "it's", `a"b`, "{x}", `back\slash`, "tab\there", "nl\nx", "$HOME", "ü ✓", "'{\\}'\x01"} {
		var stdout, stderr bytes.Buffer
		src := quoteShoal(s) + ".len()"
		if code := run(context.Background(), []string{"-c", src}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("%q quoted %s: exit %d %s", s, quoteShoal(s), code, stderr.String())
		}
		if want := fmt.Sprintf("%d\n", utf8.RuneCountInString(s)); stdout.String() != want {
			t.Errorf("%q quoted %s has length %q, want %q", s, quoteShoal(s), stdout.String(), want)
		}
		if strings.ContainsFunc(s, unicode.IsControl) {
			continue
		}
		stdout.Reset()
		run(context.Background(), []string{"-c", quoteShoal(s)}, strings.NewReader(""), &stdout, &stderr)
		if stdout.String() != s+"\n" && s != "" {
			t.Errorf("%q quoted %s displays %q", s, quoteShoal(s), stdout.String())
		}
	}
}

// TestRemoteREPLOnATerminal runs the built shoal with --kernel on a
// pseudo-terminal, as a person watching an agent's session would: values
// display as standalone, a binding made at the terminal is seen by
// another client of the same session (and one made by that client at
// the terminal), Ctrl-C of a long statement on the kernel returns within
// 2 s with one quiet line, the session goes on after it, and `exit 3`
// leaves with status 3.
func TestRemoteREPLOnATerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are exercised on Linux")
	}
	sock := startKernel(t)
	cmd := exec.Command(filepath.Join(binaries(t), "shoal"), "--kernel", sock, "--session", "shared")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "TERM=xterm", "SHOAL_PROMPT_LEFT=shoal> ")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	out := &ptyOutput{}
	go func() { _, _ = io.Copy(out, tty) }()
	send := func(s string) {
		t.Helper()
		if _, err := tty.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	other := func(src string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"--kernel", sock, "--session", "shared", "-c", src}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("other client %q: exit %d %s", src, code, stderr.String())
		}
		return stdout.String()
	}

	at := out.waitForPrompt(t, 0)
	send("let shared = 41\r")
	at = out.waitForPrompt(t, at)
	if got := other("shared + 1"); got != "42\n" {
		t.Fatalf("the other client sees %q, want 42", got)
	}
	other("let from_agent = [3, 1, 2]")
	send("from_agent.sort()\r")
	at = out.waitFor(t, at, "0  1\r\n1  2\r\n2  3")
	at = out.waitForPrompt(t, at)
	send("echo one; echo two\r")
	at = out.waitFor(t, at, "one\r\ntwo")
	at = out.waitForPrompt(t, at)
	send("1 + \"a\"\r")
	at = out.waitFor(t, at, "error[type_error]")
	at = out.waitFor(t, at, "^")
	at = out.waitForPrompt(t, at)

	send("sleep 30s\r")
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	send("\x03")
	at = out.waitFor(t, at, "^C interrupted")
	at = out.waitForPrompt(t, at)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Ctrl-C took %v to come back", d)
	}
	if seen := out.String(); strings.Contains(seen, "context canceled") || strings.Contains(seen, "error[cancelled]") {
		t.Errorf("an interrupt printed a diagnostic: %q", seen)
	}
	send("shared\r") // the session outlived the cancelled exec
	at = out.waitFor(t, at, "41")
	out.waitForPrompt(t, at)

	send("exit 3\r")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Fatalf("exit: %v, want status 3", err)
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("shoal did not exit")
	}
	if got := other("shared"); got != "41\n" {
		t.Errorf("after the terminal left, the session holds %q", got)
	}
}

// runBinary runs bin with args in a temp dir and returns its combined
// output.
func runBinary(bin string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestRemoteSameDisplay: what a value looks like through a kernel is what
// it looks like standalone, tall tables included (the kernel is asked
// for values whole up to one answer's 64 KiB); a larger one is the
// kernel's rendering with a line naming its ref.
func TestRemoteSameDisplay(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's end-to-end tests run on Linux")
	}
	sock := startKernel(t)
	for _, src := range []string{
		`(1..300).map(i => {a: i, b: "x"})`,
		`{name: "api", ready: true, tags: ["a", "b"], nested: {n: 1.5}}`,
		`[3, 1, 2].sort()`,
		`"plain text"`,
		`2s + 500ms`,
		`[1, [2, [3]]]`,
		`null`,
		`echo out; ^sh -c "echo ext"; 7`,
	} {
		var local, remote, lerr, rerr bytes.Buffer
		lc := run(context.Background(), []string{"-c", src}, strings.NewReader(""), &local, &lerr)
		rc := run(context.Background(), []string{"--kernel", sock, "-c", src}, strings.NewReader(""), &remote, &rerr)
		if lc != rc || local.String() != remote.String() {
			t.Errorf("%s:\nstandalone (exit %d):\n%s\nthrough the kernel (exit %d):\n%s%s", src, lc, local.String(), rc, remote.String(), rerr.String())
		}
	}
	var out bytes.Buffer
	run(context.Background(), []string{"--kernel", sock, "-c", `(1..20000).map(i => {a: i, b: "xxxxxxxx"})`}, strings.NewReader(""), &out, io.Discard)
	if !strings.Contains(out.String(), "larger than one answer, is out:") {
		t.Errorf("an over-large value: %q", out.String()[max(0, out.Len()-300):])
	}
}

// TestRemoteDenied: a token principal with no policy is refused every
// effect before anything runs: a typed diagnostic naming what the source
// needed, exit 1; pure evaluation still works.
func TestRemoteDenied(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's end-to-end tests run on Linux")
	}
	sock, state := startKernelState(t)
	_, secret, err := auth.Open(filepath.Join(state, "tokens.json")).Create("agent:t", "default", nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	deadline := time.Now().Add(10 * time.Second)
	for {
		stdout.Reset()
		stderr.Reset()
		code := run(context.Background(), []string{"--kernel", sock, "--token", secret, "-c", "1 + 1"}, strings.NewReader(""), &stdout, &stderr)
		if code == 0 {
			break
		}
		if time.Now().After(deadline) { // the kernel notices a new token within 1 s
			t.Fatalf("pure evaluation with the token: exit %d %s", code, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if stdout.String() != "2\n" {
		t.Errorf("pure evaluation printed %q", stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	code := run(context.Background(), []string{"--kernel", sock, "--token", secret, "-c", "^echo hi"}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "error[denied]") || !strings.Contains(stderr.String(), "proc_spawn echo") || stdout.Len() != 0 {
		t.Errorf("denied spawn: exit %d stdout %q stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestRemoteKernelRestart: a statement after the kernel went away says
// so in one error, and the one after a new kernel listens at the socket
// runs there (the REPL need not be restarted).
func TestRemoteKernelRestart(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's end-to-end tests run on Linux")
	}
	bin := filepath.Join(binaries(t), "shoal-kernel")
	dir, err := os.MkdirTemp("", "sk")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "k.sock")
	start := func() *exec.Cmd { return startKernelIn(t, bin, sock, filepath.Join(dir, "state"), dir) }
	k := start()
	var out bytes.Buffer
	r, err := dialRemote(context.Background(), remoteTarget{Socket: sock}, &out, &out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, err := r.Eval(context.Background(), "20 + 22", nil); err != nil || value.Display(v) != "42" {
		t.Fatalf("first kernel: %v %v", v, err)
	}
	k.Process.Signal(syscall.SIGTERM)
	k.Wait()
	waitClosed(t, r)
	if _, err := r.Eval(context.Background(), "1", nil); err == nil || !strings.Contains(err.Error(), "lost the kernel at "+sock) {
		t.Fatalf("after the kernel stopped: %v", err)
	}
	k = start()
	if v, err := r.Eval(context.Background(), "[1, 2].len()", nil); err != nil || value.Display(v) != "2" {
		t.Fatalf("second kernel: %v %v", v, err)
	}

	// Killed and started again between two statements: the loss is
	// known before the next statement is sent, so that statement runs in
	// the new kernel, with one line saying so; nothing is run twice.
	k.Process.Kill()
	k.Wait()
	waitClosed(t, r)
	k = start()
	defer func() { k.Process.Signal(syscall.SIGTERM); k.Wait() }()
	out.Reset()
	if v, err := r.Eval(context.Background(), "3 * 3", nil); err != nil || value.Display(v) != "9" {
		t.Fatalf("after a restart between statements: %v %v", v, err)
	}
	if got := out.String(); !strings.Contains(got, "lost the kernel at "+sock+"; this statement runs in the kernel answering there now") {
		t.Errorf("after a restart between statements the REPL said %q", got)
	}
}

// waitClosed waits until the remote session's client has seen its
// connection end.
func waitClosed(t *testing.T, r *remoteSession) {
	t.Helper()
	select {
	case <-r.c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the client never saw the kernel go")
	}
}

// startKernelIn starts the kernel binary bin in the directory cwd, serving
// sock with its state in state, and returns once it listens.
func startKernelIn(t *testing.T, bin, sock, state, cwd string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "--socket", sock, "--state-dir", state)
	cmd.Dir = cwd
	cmd.SysProcAttr = diewithparent.Attr()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for a connection to be taken, not for the socket file: the
	// file exists from the kernel's bind, and a dial between its bind and
	// its listen is refused.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return cmd
		}
		if time.Now().After(deadline) {
			t.Fatal("kernel did not listen")
		}
	}
}
