package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/diewithparent"
)

// nobody is the user the test runs the kernel and its reader as when the
// test itself runs as root (whose CAP_SYS_PTRACE reads any process).
const nobody = 65534

// TestKernelNotDumpable: a program running as the kernel's user cannot
// read the kernel's environment or list its descriptors through /proc,
// unless the kernel was started with --debuggable (which also shows that
// the reads would otherwise succeed).
func TestKernelNotDumpable(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		readable bool
	}{
		{"default", nil, false},
		{"debuggable", []string{"--debuggable"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, cred := userDir(t)
			bin := filepath.Join(dir, "shoal-kernel")
			copyFile(t, kernelBinary(t), bin)
			sock := filepath.Join(dir, "k.sock")
			cmd := exec.Command(bin, append([]string{"--socket", sock, "--state-dir", filepath.Join(dir, "state")}, tc.args...)...)
			cmd.Dir = dir
			cmd.SysProcAttr = diewithparent.Attr()
			cmd.SysProcAttr.Credential = cred
			cmd.Env = []string{"HOME=" + dir, "PATH=/usr/bin:/bin", "XDG_RUNTIME_DIR=" + dir, "XDG_STATE_HOME=" + dir, "SHOAL_TOKEN_STORE="}
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			ready := make(chan string, 1)
			go func() {
				line, _ := kernelLine(bufio.NewReader(stderr))
				ready <- line
				_, _ = io.Copy(io.Discard, stderr)
			}()
			select {
			case line := <-ready:
				if !strings.HasPrefix(line, "shoal-kernel: ready ") {
					t.Fatalf("first stderr line %q is not the ready line", line)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("timed out waiting for the ready line")
			}
			// Hidden or not, the kernel runs programs (its sandbox trampoline
			// and supervisor exec /proc/self/exe).
			if out := execThrough(t, sock, "^/bin/echo hid den"); !strings.Contains(out, `"v":"hid den\n"`) || strings.Contains(out, `"error"`) {
				t.Errorf("exec through the kernel: %s", out)
			}
			proc := "/proc/" + strconv.Itoa(cmd.Process.Pid)
			for _, argv := range [][]string{{"cat", proc + "/environ"}, {"ls", proc + "/fd"}} {
				r := exec.Command(argv[0], argv[1:]...)
				r.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
				out, err := r.CombinedOutput()
				switch {
				case tc.readable && err != nil:
					t.Errorf("%v as the kernel's user: %v: %s", argv, err, out)
				case !tc.readable && err == nil:
					t.Errorf("%v as the kernel's user read the kernel: %q", argv, out)
				case !tc.readable && !strings.Contains(string(out), "Permission denied"):
					t.Errorf("%v failed for another reason: %s", argv, out)
				}
			}
		})
	}
}

// execThrough attaches on one connection, execs src and returns the
// exec's answer line.
func execThrough(t *testing.T, sock, src string) string {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	q, _ := json.Marshal(src)
	frames := `{"jsonrpc":"2.0","id":1,"method":"session.attach","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"exec","params":{"src":` + string(q) + `}}` + "\n"
	if _, err := c.Write([]byte(frames)); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the exec's answer: %v", err)
		}
		if strings.Contains(line, `"id":2`) {
			return line
		}
	}
}

// userDir is a fresh directory the test's kernel user owns, and that
// user's credential for exec (nil when the test is not root: it is then
// the test's own user).
func userDir(t *testing.T) (string, *syscall.Credential) {
	t.Helper()
	dir := shortDir(t)
	if os.Getuid() != 0 {
		return dir, nil
	}
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	// The temp directory's parent may not be searchable by nobody.
	for d := filepath.Dir(dir); d != "/"; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o001 == 0 {
			t.Skipf("%s is not searchable by other users", d)
		}
	}
	return dir, &syscall.Credential{Uid: nobody, Gid: nobody}
}

// copyFile copies the executable from to to, owned by the directory's
// owner.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
