package version

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// binaries are the commands that report the build's version.
var binaries = []string{"shoal", "shoal-kernel", "shoal-mcp", "shoal-token", "shoal-secret"}

// buildAll builds every binary pure Go into a temporary directory, with
// extra go build flags.
func buildAll(t *testing.T, extra ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the five binaries")
	}
	dir := t.TempDir()
	args := append([]string{"build", "-o", dir + "/"}, extra...)
	cmd := exec.Command("go", append(args, "./cmd/...")...)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

// versionLine runs bin --version and returns its one line.
func versionLine(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append(args, "--version")...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	if strings.Count(string(out), "\n") != 1 {
		t.Fatalf("%s --version printed %q, want one line", bin, out)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// TestBinariesAgree builds all five binaries, stamped and not, and checks
// that their --version lines have one shape and one version, the one the
// kernel reports in kernel.info and the MCP facade in its server info.
func TestBinariesAgree(t *testing.T) {
	line := regexp.MustCompile(`^(shoal[a-z-]*) (\S+) \((go\S+) ([a-z0-9]+)/([a-z0-9]+)\)$`)
	check := func(t *testing.T, dir, want string) {
		t.Helper()
		got := ""
		for _, name := range binaries {
			l := versionLine(t, filepath.Join(dir, name))
			m := line.FindStringSubmatch(l)
			if m == nil || m[1] != name || m[3] != runtime.Version() || m[4] != runtime.GOOS || m[5] != runtime.GOARCH {
				t.Errorf("%s --version = %q, want %q", name, l, name+" VERSION ("+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+")")
				continue
			}
			if got == "" {
				got = m[2]
			}
			if m[2] != got {
				t.Errorf("%s reports %q, shoal %q", name, m[2], got)
			}
		}
		if want != "" && got != want {
			t.Errorf("the binaries report %q, want %q", got, want)
		}
		// shoal kernel and shoal token run the companions beside shoal.
		for _, c := range []string{"kernel", "token"} {
			if l := versionLine(t, filepath.Join(dir, "shoal"), c); l != versionLine(t, filepath.Join(dir, "shoal-"+c)) {
				t.Errorf("shoal %s --version = %q", c, l)
			}
		}
		info, server := kernelVersions(t, dir)
		if info != got {
			t.Errorf("kernel.info version %q, --version %q", info, got)
		}
		if server != got {
			t.Errorf("shoal-mcp server info version %q, --version %q", server, got)
		}
	}
	t.Run("stamped", func(t *testing.T) {
		const stamp = "v9.8.7-agree"
		check(t, buildAll(t, "-ldflags", "-X github.com/shoalgo/shoal/internal/version.stamped="+stamp), stamp)
	})
	t.Run("unstamped", func(t *testing.T) {
		// dev here (a worktree or -buildvcs=false), a revision in a
		// checkout: whichever it is, the same for all.
		check(t, buildAll(t), "")
	})
}

// kernelVersions starts the built kernel on a private socket and returns
// the version kernel.info reports and the one shoal-mcp, attached to it,
// reports in its initialize answer.
func kernelVersions(t *testing.T, dir string) (info, server string) {
	t.Helper()
	run, err := os.MkdirTemp("", "svk") // short: a socket path has ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	sock := filepath.Join(run, "k.sock")
	env := append(os.Environ(), "HOME="+run, "XDG_STATE_HOME="+filepath.Join(run, "state"), "XDG_RUNTIME_DIR="+run, "XDG_CONFIG_HOME="+filepath.Join(run, "config"), "SHOAL_TOKEN=", "SHOAL_TOKEN_STORE=")
	k := exec.Command(filepath.Join(dir, "shoal-kernel"), "--socket", sock, "--state-dir", filepath.Join(run, "state"))
	k.Dir, k.Env = run, env
	stderr, err := k.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = k.Process.Signal(syscall.SIGTERM)
		_ = k.Wait()
	}()
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		ok := false
		for sc.Scan() {
			if !ok && strings.HasPrefix(sc.Text(), "shoal-kernel: ready ") {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
	}()
	if !<-ready {
		t.Fatal("the kernel exited before it was ready")
	}

	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	var resp struct {
		Result struct {
			Version string `json:"version"`
		} `json:"result"`
	}
	io.WriteString(c, `{"jsonrpc":"2.0","id":1,"method":"kernel.info"}`+"\n")
	if err := readJSONLine(bufio.NewReader(c), &resp); err != nil {
		t.Fatalf("kernel.info: %v", err)
	}
	info = resp.Result.Version

	m := exec.Command(filepath.Join(dir, "shoal-mcp"), "--socket", sock, "--no-autostart")
	m.Dir, m.Env = run, env
	in, err := m.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		in.Close()
		_ = m.Wait()
	}()
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"version-test","version":"1"}}}`+"\n")
	var init struct {
		Result struct {
			ServerInfo struct {
				Version string `json:"version"`
			} `json:"serverInfo"`
		} `json:"result"`
	}
	if err := readJSONLine(bufio.NewReader(out), &init); err != nil {
		t.Fatalf("shoal-mcp initialize: %v", err)
	}
	return info, init.Result.ServerInfo.Version
}

// readJSONLine decodes one line of r into v.
func readJSONLine(r *bufio.Reader, v any) error {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return err
	}
	return json.Unmarshal(line, v)
}
