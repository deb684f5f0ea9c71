package main

import (
	"bufio"
	"encoding/json"
	"errors"
	buildversion "github.com/shoalgo/shoal/internal/version"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/diewithparent"
	"github.com/shoalgo/shoal/internal/policy"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// kernelBinary builds shoal-kernel once per test run.
func kernelBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "skbin")
		if err != nil {
			buildErr = err
			return
		}
		binDir = dir
		binPath = filepath.Join(dir, "shoal-kernel")
		cmd := exec.Command("go", "build", "-o", binPath, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // pure Go, as shipped
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("build: %v", buildErr)
	}
	return binPath
}

func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "skp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// kernelProc is a running shoal-kernel.
type kernelProc struct {
	cmd   *exec.Cmd
	first chan lineResult // the first stderr line
	done  chan error
}

type lineResult struct {
	line string
	err  error
}

func startProc(t *testing.T, dir string, args ...string) *kernelProc {
	t.Helper()
	return startProcEnv(t, dir, append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"), "SHOAL_TOKEN_STORE="), args...)
}

// startProcEnv is startProc with exactly env as the kernel's environment.
func startProcEnv(t *testing.T, dir string, env []string, args ...string) *kernelProc {
	t.Helper()
	cmd := exec.Command(kernelBinary(t), args...)
	cmd.Dir = dir
	cmd.SysProcAttr = diewithparent.Attr() // dies with the test binary
	cmd.Env = env
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &kernelProc{cmd: cmd, first: make(chan lineResult, 1), done: make(chan error, 1)}
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	go func() {
		br := bufio.NewReader(pr)
		line, err := kernelLine(br)
		p.first <- lineResult{line, err}
		io.Copy(io.Discard, br)
		p.done <- cmd.Wait()
	}()
	return p
}

// kernelLine reads the kernel's next line of its own from its stderr,
// past the Go runtime's scheduler lines: the kernel runs with schedtrace
// set (package sysmon), and on a machine up longer than sysmon.Period the
// runtime writes one at start.
func kernelLine(br *bufio.Reader) (string, error) {
	for {
		line, err := br.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "SCHED ") {
			return line, err
		}
	}
}

// readyLine returns the socket path from the ready line.
func (p *kernelProc) readyLine(t *testing.T) string {
	t.Helper()
	select {
	case r := <-p.first:
		if r.err != nil {
			t.Fatalf("no ready line: %q %v", r.line, r.err)
		}
		path, ok := strings.CutPrefix(strings.TrimSuffix(r.line, "\n"), "shoal-kernel: ready ")
		if !ok {
			t.Fatalf("first stderr line %q is not the ready line", r.line)
		}
		return path
	case <-time.After(20 * time.Second):
		t.Fatal("timed out waiting for the ready line")
	}
	return ""
}

func (p *kernelProc) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("wait: %v", err)
		}
		return 0
	case <-time.After(15 * time.Second):
		t.Fatal("kernel did not exit")
	}
	return -1
}

func call(t *testing.T, sock, line string) map[string]any {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	resp, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(resp, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestReadyServeAndSIGTERM(t *testing.T) {
	dir := shortDir(t)
	if err := os.Mkdir(filepath.Join(dir, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, dir, "--session", "work")
	sock := p.readyLine(t)
	if want := filepath.Join(dir, "run", "shoal", "work.sock"); sock != want {
		t.Errorf("socket %s, want %s", sock, want)
	}
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode().Type() != os.ModeSocket {
		t.Errorf("socket mode %v %v", fi.Mode(), err)
	}
	if di, err := os.Stat(filepath.Dir(sock)); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("runtime dir mode %v %v", di.Mode(), err)
	}
	m := call(t, sock, `{"jsonrpc":"2.0","id":1,"method":"session.attach","params":{}}`)
	res, _ := m["result"].(map[string]any)
	if res == nil || res["cwd"].(map[string]any)["display"] != dir {
		t.Errorf("attach = %v", m)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
}

func TestSIGINTCancelsInflightWork(t *testing.T) {
	dir := shortDir(t)
	sock := filepath.Join(dir, "k.sock")
	p := startProc(t, dir, "--socket", sock)
	p.readyLine(t)
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"session.attach"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"exec","params":{"src":"while true { }"}}` + "\n"))
	r := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := r.ReadBytes('\n'); err != nil { // attach answer
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d after SIGINT", code)
	}
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("shutdown took %v", d)
	}
	line, _ := r.ReadBytes('\n')
	if !strings.Contains(string(line), `"id":2`) || !strings.Contains(string(line), "-32002") {
		t.Errorf("in-flight exec answered %q", line)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
}

func TestRefusesLiveListenerAndNonSocket(t *testing.T) {
	dir := shortDir(t)
	sock := filepath.Join(dir, "k.sock")
	first := startProc(t, dir, "--socket", sock)
	first.readyLine(t)

	second := startProc(t, dir, "--socket", sock)
	if code := second.wait(t); code == 0 {
		t.Error("second kernel on a live socket exited 0")
	}
	// The first is still serving.
	if m := call(t, sock, `{"jsonrpc":"2.0","id":1,"method":"kernel.info"}`); m["result"] == nil {
		t.Errorf("first kernel stopped serving: %v", m)
	}

	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	third := startProc(t, dir, "--socket", plain)
	if code := third.wait(t); code == 0 {
		t.Error("kernel replaced a regular file")
	}
	if b, err := os.ReadFile(plain); err != nil || string(b) != "keep me" {
		t.Errorf("regular file touched: %q %v", b, err)
	}
}

func TestReplacesStaleSocket(t *testing.T) {
	dir := shortDir(t)
	sock := filepath.Join(dir, "k.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close() // leaves a socket file with no listener
	if _, err := os.Lstat(sock); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, dir, "--socket", sock)
	if got := p.readyLine(t); got != sock {
		t.Errorf("ready %s", got)
	}
	if m := call(t, sock, `{"jsonrpc":"2.0","id":1,"method":"kernel.info"}`); m["result"] == nil {
		t.Errorf("kernel.info = %v", m)
	}
}

func TestBadPolicyIsFatal(t *testing.T) {
	dir := shortDir(t)
	for name, content := range map[string]string{
		"missing.toml": "",
		"broken.toml":  "[principal\n",
		"badenum.toml": "[principal.\"agent:x\"]\nauto_apply = \"sometimes\"\n",
		"badlist.toml": "[principal.\"agent:x\"]\nproc_spawn = \"git\"\n",
	} {
		path := filepath.Join(dir, name)
		if content != "" {
			os.WriteFile(path, []byte(content), 0o600)
		}
		var stderr strings.Builder
		code := run([]string{"--socket", filepath.Join(dir, "p.sock"), "--policy", path}, io.Discard, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), "policy") {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr.String())
		}
		if _, err := os.Lstat(filepath.Join(dir, "p.sock")); err == nil {
			t.Errorf("%s: socket created despite a bad policy", name)
		}
	}
	good := filepath.Join(dir, "good.toml")
	os.WriteFile(good, []byte("[principal.\"agent:x\"]\nproc_spawn = [\"git\"]\nauto_apply = \"in-grant\"\n[principal.\"agent:x\".fs]\nread = [\"/tmp/**\"]\n"), 0o600)
	if _, err := policy.Load(good, dir); err != nil {
		t.Errorf("good policy refused: %v", err)
	}
}

func TestUsageErrors(t *testing.T) {
	var stderr strings.Builder
	if code := run([]string{"--bogus"}, io.Discard, &stderr); code != 2 {
		t.Errorf("--bogus exit %d", code)
	}
	if code := run([]string{"extra"}, io.Discard, &stderr); code != 2 {
		t.Errorf("positional exit %d", code)
	}
	if code := run([]string{"--session", "../x"}, io.Discard, &stderr); code == 0 {
		t.Errorf("bad session name accepted")
	}
}

// TestVersion: every binary's --version names the build's one version
// string, as kernel.info does.
func TestVersion(t *testing.T) {
	var out, errb strings.Builder
	version := buildversion.String()
	if code := run([]string{"--version"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "shoal-kernel "+version+" (") {
		t.Fatalf("--version: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
