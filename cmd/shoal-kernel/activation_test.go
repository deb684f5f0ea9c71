package main

import (
	"bufio"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSocketActivation hands the built kernel a listening socket as
// systemd does (fd 3, LISTEN_FDS=1, LISTEN_PID its own pid, set by a
// shell that then execs it): it serves that socket, says so on the ready
// line, hides LISTEN_* from its sessions, and leaves the socket in place
// at SIGTERM, since systemd owns it. LISTEN_PID of another process is
// ignored: the kernel binds its own socket.
func TestSocketActivation(t *testing.T) {
	bin := kernelBinary(t)
	dir := shortDir(t)
	sock := filepath.Join(dir, "act.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	f, err := l.File()
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	cmd := exec.Command("/bin/sh", "-c", `LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=shoal exec "$0" --state-dir "$1"`, bin, filepath.Join(dir, "state"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"), "SHOAL_TOKEN_STORE=")
	cmd.ExtraFiles = []*os.File{f}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	done := make(chan error, 1)
	lines := make(chan string, 1)
	go func() {
		br := bufio.NewReader(stderr)
		line, _ := kernelLine(br)
		lines <- line
		_, _ = br.WriteTo(discard{})
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
	})
	select {
	case line := <-lines:
		if want := "shoal-kernel: ready " + sock + "\n"; line != want {
			t.Fatalf("first line %q, want %q", line, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no ready line")
	}
	if _, err := os.Stat(filepath.Join(dir, "run", "shoal", "default.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the kernel bound a socket of its own too: %v", err)
	}
	m := call(t, sock, `{"jsonrpc":"2.0","id":1,"method":"kernel.info"}`)
	if res, _ := m["result"].(map[string]any); res == nil || res["name"] == nil {
		t.Fatalf("kernel.info on the activated socket = %v", m)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"session.attach","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"exec","params":{"src":"env.keys().where(k => k.starts_with(\"LISTEN_\")).len()"}}` + "\n"))
	br := bufio.NewReader(c)
	br.ReadString('\n')
	ans, _ := br.ReadString('\n')
	if !strings.Contains(ans, `"render":"0"`) {
		t.Errorf("a session sees LISTEN_*: %s", ans)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("kernel did not exit")
	}
	if fi, err := os.Lstat(sock); err != nil || fi.Mode().Type() != os.ModeSocket {
		t.Errorf("the activated socket was removed: %v", err)
	}
}

// TestSocketActivationOtherPID: LISTEN_* meant for another process (an
// inherited environment) are ignored and removed.
func TestSocketActivationOtherPID(t *testing.T) {
	dir := shortDir(t)
	if err := os.Mkdir(filepath.Join(dir, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LISTEN_PID", "1")
	t.Setenv("LISTEN_FDS", "1")
	p := startProc(t, dir)
	if sock := p.readyLine(t); sock != filepath.Join(dir, "run", "shoal", "default.sock") {
		t.Errorf("ready on %s, want its own socket", sock)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
