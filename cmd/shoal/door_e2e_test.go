package main

// One session, one truth, whichever door (issue 23): the built shoal
// through a real shoal-kernel shows what the standalone shoal shows, runs
// where its prompt says, keeps bytes, refuses programs that need a
// terminal, finds the kernel's socket on its own, and a token principal's
// session starts where its policy reads and can rm into the kernel's trash.

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/shoalgo/shoal/internal/auth"
)

// doorKernel starts the built shoal-kernel in a directory of its own (not
// one any client runs in) with XDG_RUNTIME_DIR set to a short private
// directory, and args (no --socket: it listens at the discovered socket).
// It returns the socket it said it listens at, its state directory and the
// runtime directory.
func doorKernel(t *testing.T, args ...string) (sock, state, run string) {
	t.Helper()
	run = shortDir(t)
	state = t.TempDir()
	return launchKernel(t, run, append([]string{"--state-dir", state}, args...)...), state, run
}

// shortDir is a fresh directory with a short path (a socket path has
// about 100 bytes), removed at the test's end.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// launchKernel starts the built shoal-kernel with args, in a directory of
// its own, with XDG_RUNTIME_DIR=run and a private XDG_STATE_HOME, and
// returns the socket its ready line names. It is stopped (SIGTERM, then
// SIGKILL after 10 s) when the test ends.
func launchKernel(t *testing.T, run string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "shoal-kernel"), args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "XDG_RUNTIME_DIR="+run)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if p, ok := strings.CutPrefix(sc.Text(), "shoal-kernel: ready "); ok {
				ready <- p
			}
		}
	}()
	select {
	case sock := <-ready:
		return sock
	case <-time.After(30 * time.Second):
		t.Fatal("shoal-kernel never said it was ready")
	}
	return ""
}

// shoalAt runs the built shoal in dir with env added and returns its
// stdout, stderr and exit status.
func shoalAt(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "shoal"), args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("shoal %q: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// doorFiles makes a directory of files whose times have a fraction of a
// second (a display to the second cuts it) and returns it.
func doorFiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := make([]byte, 3000)
	for i := range bin {
		bin[i] = byte(i*7 + i/13)
	}
	files := map[string][]byte{"f": []byte("abc"), "g.txt": []byte("line\n"), "bin.dat": bin}
	when := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDoorSameAsStandalone: on the same directory, `shoal --kernel -c SRC`
// prints exactly what `shoal -c SRC` prints (tables without the `name`
// column that repeats `path`, times to the second, statement output
// included), cat's bytes arrive exactly (no newline added, binary kept),
// save and a redirect print nothing, and a list never prints as a text
// does, in either door.
func TestDoorSameAsStandalone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's end-to-end tests run on Linux")
	}
	sock, _, _ := doorKernel(t)
	dir := doorFiles(t)
	cases := []string{
		`ls`,
		`ls; 1`,
		`stat f`,
		`{when: (stat f).modified, n: 1}`,
		`["a", "b"]`,
		`"a\nb"`,
		`cat f`,
		`cat g.txt`,
		`cat bin.dat`,
		`save saved.txt "x"`,
		`echo hi > redirected.txt`,
		`[3, 1, 2].sort()`,
	}
	outs := map[string]string{}
	for _, src := range cases {
		local, lerr, lc := shoalAt(t, dir, nil, "-c", src)
		remote, rerr, rc := shoalAt(t, dir, nil, "--kernel", sock, "-c", src)
		if lc != 0 || rc != 0 || local != remote {
			t.Errorf("%s:\nstandalone (exit %d):\n%q%s\nthrough the kernel (exit %d):\n%q%s", src, lc, local, lerr, rc, remote, rerr)
		}
		outs[src] = remote
	}
	if strings.Contains(outs["ls"], "name") || strings.Contains(outs["ls"], "123456789") {
		t.Errorf("ls through the kernel shows the name column or nanoseconds:\n%s", outs["ls"])
	}
	if strings.Contains(outs["stat f"], ".123") {
		t.Errorf("stat through the kernel shows a fraction of a second:\n%s", outs["stat f"])
	}
	for src, file := range map[string]string{"cat f": "f", "cat g.txt": "g.txt", "cat bin.dat": "bin.dat"} {
		want, _ := os.ReadFile(filepath.Join(dir, file))
		if outs[src] != string(want) {
			t.Errorf("%s through the kernel: %d bytes, want the file's %d exactly", src, len(outs[src]), len(want))
		}
	}
	if outs[`save saved.txt "x"`] != "" || outs[`echo hi > redirected.txt`] != "" {
		t.Errorf("save or a redirect printed %q / %q", outs[`save saved.txt "x"`], outs[`echo hi > redirected.txt`])
	}
	if outs[`["a", "b"]`] == outs[`"a\nb"`] {
		t.Errorf("a list and a text print alike: %q", outs[`"a\nb"`])
	}
	if got := outs[`["a", "b"]`]; got != "0  a\n1  b\n" {
		t.Errorf(`["a", "b"] prints %q`, got)
	}
	for _, f := range []string{"saved.txt", "redirected.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s was not written in the client's directory: %v", f, err)
		}
	}
}

// TestDoorDiscoveredSocket: `--kernel` without a socket attaches to the
// discovered one as shoal-mcp and shoal doctor do, before -c, before a
// script and alone; the session runs in the client's directory, and
// --keep-cwd leaves it where it is.
func TestDoorDiscoveredSocket(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's end-to-end tests run on Linux")
	}
	_, _, run := doorKernel(t)
	env := []string{"XDG_RUNTIME_DIR=" + run, "SHOAL_SESSION="}
	dir := t.TempDir()
	if out, errs, code := shoalAt(t, dir, env, "--kernel", "-c", "pwd"); code != 0 || out != dir+"\n" {
		t.Fatalf("shoal --kernel -c pwd: exit %d, %q %s (want %s)", code, out, errs, dir)
	}
	other := t.TempDir()
	if out, errs, code := shoalAt(t, other, env, "--kernel", "--keep-cwd", "-c", "pwd"); code != 0 || out != dir+"\n" {
		t.Errorf("--keep-cwd moved the session: exit %d, %q %s (want %s)", code, out, errs, dir)
	}
	script := filepath.Join(dir, "s.shl")
	if err := os.WriteFile(script, []byte("args.len() + 40\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := shoalAt(t, dir, env, "--kernel", "s.shl", "a", "b"); code != 0 || out != "42\n" {
		t.Errorf("shoal --kernel s.shl a b: exit %d, %q %s", code, out, errs)
	}
	if out, errs, code := shoalAt(t, dir, env, "--kernel=", "-c", "1"); code != 0 || out != "1\n" {
		t.Errorf("shoal --kernel= -c 1: exit %d, %q %s", code, out, errs)
	}
	cmd := exec.Command(filepath.Join(binaries(t), "shoal"), "--kernel")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, "XDG_STATE_HOME="+t.TempDir())...)
	cmd.Stdin = strings.NewReader("pwd\n")
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != dir+"\n" {
		t.Errorf("shoal --kernel < source: %v %q", err, out)
	}
	// A session no kernel serves names the socket it looked for.
	_, errs, code := shoalAt(t, dir, env, "--kernel", "--session", "nobody", "-c", "1")
	if want := filepath.Join(run, "shoal", "nobody.sock"); code != 1 || !strings.Contains(errs, want) {
		t.Errorf("no kernel for the session: exit %d %q, want it to name %s", code, errs, want)
	}
}

// doorPrompt is the test's prompt: the session's directory between angle
// brackets (the directory module adds a space), then "door> ".
var doorPrompt = regexp.MustCompile(`\n(?:\x1b\[[0-9;?]*[ -/]*[@-~])*<([^<>\n]*?) ?>door> `)

// waitForDoorPrompt waits for a fresh prompt after from and returns the
// offset past it and the directory it shows.
func (p *ptyOutput) waitForDoorPrompt(t *testing.T, from int) (int, string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		out := p.String()
		if m := doorPrompt.FindStringSubmatchIndex(out[from:]); m != nil {
			return from + m[1], out[from+m[2] : from+m[3]]
		}
		if time.Now().After(deadline) {
			t.Fatalf("terminal never showed a fresh prompt; it shows:\n%q", out[from:])
		}
	}
}

// doorREPL starts the built shoal with args in dir on a pseudo-terminal,
// with a prompt showing the whole directory.
func doorREPL(t *testing.T, dir string, env []string, args ...string) (*os.File, *ptyOutput, *exec.Cmd) {
	t.Helper()
	cfg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "shoal"), 0o700); err != nil {
		t.Fatal(err)
	}
	promptToml := "[format]\nleft = \"<$directory>door> \"\n[module.directory]\ntruncate_to = 0\n"
	if err := os.WriteFile(filepath.Join(cfg, "shoal", "prompt.toml"), []byte(promptToml), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(binaries(t), "shoal"), args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+cfg, "HOME="+t.TempDir(),
		"TERM=xterm", "NO_COLOR=1", "PAGER=cat"), env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	out := &ptyOutput{}
	go func() { _, _ = io.Copy(out, tty) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		tty.Close()
	})
	return tty, out, cmd
}

// ptyLines is the text between a typed line's echo and the next prompt,
// with the terminal's line ends made plain and escape sequences dropped.
var escapeSeq = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[=>]`)

func ptyLines(s string) string {
	s = escapeSeq.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[:i+1] // the prompt's own line
	}
	return s
}

// TestDoorREPLOnATerminal drives `shoal --kernel` on a pseudo-terminal in
// a directory that is not the kernel's: the prompt shows the directory
// pwd prints, before and after cd; `ls` looks as it does in the standalone
// REPL on the same directory; a list shows unlike a text; an editor, a
// pager and `interact` are refused with a clear message and the prompt
// comes back (never a hang).
func TestDoorREPLOnATerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are exercised on Linux")
	}
	sock, _, _ := doorKernel(t)
	dir := doorFiles(t)
	elsewhere := t.TempDir()
	tty, out, cmd := doorREPL(t, dir, nil, "--kernel", sock)
	send := func(s string) {
		t.Helper()
		if _, err := tty.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	at, shown := out.waitForDoorPrompt(t, 0)
	if shown != dir {
		t.Fatalf("the first prompt shows %q, want the client's directory %s", shown, dir)
	}
	send("pwd\r")
	at = out.waitFor(t, at, "pwd")
	at = out.waitFor(t, at, dir)
	at, shown = out.waitForDoorPrompt(t, at)
	if shown != dir {
		t.Errorf("after pwd the prompt shows %q, want %s", shown, dir)
	}
	send("cd " + elsewhere + "\r")
	at, shown = out.waitForDoorPrompt(t, at)
	if shown != elsewhere {
		t.Errorf("after cd the prompt shows %q, want %s", shown, elsewhere)
	}
	send("pwd\r")
	at = out.waitFor(t, at, "pwd")
	at = out.waitFor(t, at, elsewhere)
	at, _ = out.waitForDoorPrompt(t, at)
	send("cd -\r")
	at, shown = out.waitForDoorPrompt(t, at)
	if shown != dir {
		t.Errorf("after cd - the prompt shows %q, want %s", shown, dir)
	}

	send("ls\r")
	from := out.waitFor(t, at, "ls")
	at, _ = out.waitForDoorPrompt(t, from)
	kernelLs := ptyLines(out.String()[from:at])

	send(`["a", "b"]` + "\r")
	at = out.waitFor(t, at, "0  a\r\n1  b\r\n")
	at, _ = out.waitForDoorPrompt(t, at)

	for _, line := range []string{"vi notes.txt", "less g.txt", "interact sh"} {
		send(line + "\r")
		at = out.waitFor(t, at, "needs a terminal, and a kernel session has none to give it")
		at, _ = out.waitForDoorPrompt(t, at)
	}
	// A job started at the prompt shows its number and command; jobs lists
	// it under the same number, and its end shows before a later prompt.
	send("sleep 1500ms &\r")
	from = at
	at = out.waitFor(t, at, "] sleep 1500ms\r\n")
	m := regexp.MustCompile(`\[(\d+)\] sleep 1500ms\r\n`).FindStringSubmatch(out.String()[from:at])
	if m == nil {
		t.Fatalf("no job line in %q", out.String()[from:at])
	}
	at, _ = out.waitForDoorPrompt(t, at)
	send("jobs\r")
	at = out.waitFor(t, at, m[1]+"  running  sleep 1500ms")
	at, _ = out.waitForDoorPrompt(t, at)
	// Enter until a prompt reports the end (the job ends 1.5 s after it
	// started, later on a loaded machine).
	done := "[" + m[1] + "] done  sleep 1500ms"
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(out.String()[at:], done); time.Sleep(300 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no end report %q; the terminal shows:\n%s", done, out.String()[at:])
		}
		send("\r")
	}
	// What a job prints is shown before a later prompt, ahead of its end
	// report, as the standalone REPL shows it.
	// A program's output, and a builtin's answer (the kernel spools what
	// the job's last statement answered, as the standalone REPL shows it).
	for _, job := range []string{"sh -c 'echo job-said-this'", `echo ("job-" + "said-that")`} {
		at = len(out.String())
		send(job + " &\r")
		said := regexp.MustCompile(`(?s)job-said-th(is|at)\r\n.*\[\d+\] done  ` + regexp.QuoteMeta(job))
		for deadline := time.Now().Add(20 * time.Second); !said.MatchString(out.String()[at:]); time.Sleep(300 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: no job output before its end report; the terminal shows:\n%s", job, out.String()[at:])
			}
			send("\r")
		}
	}

	send("exit\r")
	if err := waitExit(cmd); err != nil {
		t.Errorf("exit: %v", err)
	}

	// The standalone REPL on the same directory shows ls the same way.
	tty2, out2, cmd2 := doorREPL(t, dir, nil)
	at2, _ := out2.waitForDoorPrompt(t, 0)
	if _, err := tty2.Write([]byte("ls\r")); err != nil {
		t.Fatal(err)
	}
	from2 := out2.waitFor(t, at2, "ls")
	at2, _ = out2.waitForDoorPrompt(t, from2)
	localLs := ptyLines(out2.String()[from2:at2])
	_, _ = tty2.Write([]byte("exit\r"))
	_ = waitExit(cmd2)
	if kernelLs != localLs || !strings.Contains(localLs, "bin.dat") {
		t.Errorf("ls through the kernel:\n%s\nstandalone:\n%s", kernelLs, localLs)
	}
	if strings.Contains(kernelLs, "name") || strings.Contains(kernelLs, ".123") {
		t.Errorf("ls through the kernel shows the name column or a fraction of a second:\n%s", kernelLs)
	}
}

// waitExit waits for cmd, killing it after 10 s.
func waitExit(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		return errors.New("did not exit within 10 s")
	}
}

// TestDoorTokenSession: a token principal whose policy reads and deletes
// one directory (and nothing of the kernel's own) starts its session
// there, and `rm` of a file in it succeeds without a grant for any trash:
// the file goes to the kernel's own trash for the principal, which the
// session cannot read back. Attaching from a directory it may not read
// leaves the session where it is, with one line saying so.
func TestDoorTokenSession(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's end-to-end tests run on Linux")
	}
	proj := t.TempDir()
	if err := os.WriteFile(filepath.Join(proj, "doomed.txt"), []byte("bye"), 0o644); err != nil {
		t.Fatal(err)
	}
	pol := filepath.Join(t.TempDir(), "policy.toml")
	polText := "[principal.\"agent:door\"]\nfs.read = [\"" + proj + "/**\"]\nfs.delete = [\"" + proj + "/**\"]\n"
	if err := os.WriteFile(pol, []byte(polText), 0o600); err != nil {
		t.Fatal(err)
	}
	sock, state, _ := doorKernel(t, "--policy", pol)
	_, secret, err := auth.Open(filepath.Join(state, "tokens.json")).Create("agent:door", "default", nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	away := t.TempDir() // not readable by the principal
	tok := func(args ...string) (string, string, int) {
		return shoalAt(t, away, nil, append([]string{"--kernel", sock, "--token", secret, "--keep-cwd"}, args...)...)
	}
	var out, errs string
	var code int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, errs, code = tok("-c", "pwd")
		if code == 0 || time.Now().After(deadline) { // the kernel notices a new token within 1 s
			break
		}
	}
	if code != 0 || out != proj+"\n" {
		t.Fatalf("the token session starts in %q (exit %d %s), want %s", out, code, errs, proj)
	}
	out, errs, code = tok("-c", "(rm doomed.txt).first().trash")
	if code != 0 {
		t.Fatalf("rm of a granted file: exit %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(proj, "doomed.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("doomed.txt is still there: %v", err)
	}
	trashed := strings.TrimSpace(out)
	realState, _ := filepath.EvalSymlinks(state)
	if !strings.HasPrefix(trashed, filepath.Join(realState, "trash")+"/") {
		t.Errorf("the trash entry %q is not in the kernel's trash under %s", trashed, realState)
	}
	if data, err := os.ReadFile(trashed); err != nil || string(data) != "bye" {
		t.Errorf("the trash holds %q, %v", data, err)
	}
	if _, errs, code = tok("-c", "cat '"+trashed+"'"); code == 0 || !strings.Contains(errs, "denied") {
		t.Errorf("the session read its trash back: exit %d %s", code, errs)
	}
	// Attaching from a directory the principal may not read: the session
	// stays, and says so once.
	out, errs, code = shoalAt(t, away, nil, "--kernel", sock, "--token", secret, "-c", "pwd")
	if code != 0 || out != proj+"\n" || strings.Count(errs, "stays in "+proj) != 1 {
		t.Errorf("attach from %s: exit %d stdout %q stderr %q", away, code, out, errs)
	}
}
