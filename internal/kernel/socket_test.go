package kernel

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRuntimeDirDiscovery(t *testing.T) {
	uid := "shoal-" + strconv.Itoa(os.Getuid())
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_RUNTIME_DIR": "/run/user/7", "TMPDIR": "/var/tmp"}, "/run/user/7/shoal"},
		{map[string]string{"XDG_RUNTIME_DIR": "relative", "TMPDIR": "/var/tmp"}, "/var/tmp/" + uid + "/shoal"},
		{map[string]string{"TMPDIR": "/var/tmp"}, "/var/tmp/" + uid + "/shoal"},
		{map[string]string{}, "/tmp/" + uid + "/shoal"},
	} {
		getenv := func(k string) string { return tc.env[k] }
		noLogin := t.TempDir() // no <uid> directory in it
		if got := runtimeDir(getenv, noLogin); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.env, got, tc.want)
		}
		if RuntimeDir(getenv) != runtimeDir(getenv, noLogin) {
			continue // this machine's own login runtime directory comes first
		}
		p, err := SocketPath("", "work", getenv)
		if err != nil || p != tc.want+"/work.sock" {
			t.Errorf("SocketPath = %s %v", p, err)
		}
	}
	if p, err := SocketPath("/x/y.sock", "ignored", os.Getenv); err != nil || p != "/x/y.sock" {
		t.Errorf("explicit = %s %v", p, err)
	}
	for _, bad := range []string{"", "../x", "a/b", ".hidden", strings.Repeat("x", 65), "sp ace"} {
		if _, err := SocketPath("", bad, os.Getenv); err == nil {
			t.Errorf("session %q accepted", bad)
		}
	}
}

func TestListenCreatesPrivateDirs(t *testing.T) {
	base := shortDir(t)
	dir := filepath.Join(base, "shoal-"+strconv.Itoa(os.Getuid()), "shoal")
	sock := filepath.Join(dir, "s.sock")
	l, err := Listen(sock, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v", d, fi.Mode(), err)
		}
	}
	if fi, err := os.Lstat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket: %v %v", fi.Mode(), err)
	}
}

func TestListenRefusals(t *testing.T) {
	base := shortDir(t)

	live := filepath.Join(base, "live.sock")
	l, err := Listen(live, true)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := Listen(live, true); !errors.Is(err, ErrSocketInUse) {
		t.Errorf("live listener: %v", err)
	}

	plain := filepath.Join(base, "plain")
	os.WriteFile(plain, []byte("x"), 0o600)
	if _, err := Listen(plain, true); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("regular file: %v", err)
	}
	if b, _ := os.ReadFile(plain); string(b) != "x" {
		t.Error("regular file modified")
	}

	stale := filepath.Join(base, "stale.sock")
	sl, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	sl.SetUnlinkOnClose(false)
	sl.Close()
	l2, err := Listen(stale, true)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	l2.Close()

	if _, err := Listen(filepath.Join(base, strings.Repeat("x", 120)), true); err == nil {
		t.Error("over-long path accepted")
	}
}

func TestListenRefusesForeignSocket(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a socket to another user")
	}
	base := shortDir(t)
	sock := filepath.Join(base, "foreign.sock")
	sl, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	sl.SetUnlinkOnClose(false)
	sl.Close()
	if err := os.Lchown(sock, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(sock, true); err == nil || !strings.Contains(err.Error(), "another user") {
		t.Errorf("foreign socket: %v", err)
	}
	if _, err := os.Lstat(sock); err != nil {
		t.Errorf("foreign socket removed: %v", err)
	}
}

func TestRemoveSocketKeepsSuccessor(t *testing.T) {
	base := shortDir(t)
	sock := filepath.Join(base, "k.sock")
	l, err := Listen(sock, true)
	if err != nil {
		t.Fatal(err)
	}
	ino, err := SocketInode(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// A successor took over the path while the first socket still exists
	// under another name, so the two inodes differ.
	if err := os.Rename(sock, sock+".old"); err != nil {
		t.Fatal(err)
	}
	l2, err := Listen(sock, true)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if err := RemoveSocket(sock, ino); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(sock); err != nil {
		t.Error("removed a successor's socket")
	}
}

func TestUIDAllowed(t *testing.T) {
	for _, tc := range []struct {
		uid, ruid, euid int
		want            bool
	}{
		{1000, 1000, 1000, true},
		{0, 1000, 1000, true},
		{1001, 1000, 1000, false},
		{-1, 1000, 1000, false},
		{1000, 1001, 1000, true},
	} {
		if got := uidAllowed(tc.uid, tc.ruid, tc.euid); got != tc.want {
			t.Errorf("uidAllowed(%d, %d, %d) = %v", tc.uid, tc.ruid, tc.euid, got)
		}
	}
}

// peerHelperEnv makes the test binary act as a client: it dials the
// socket, sends kernel.info and prints what it read.
const peerHelperEnv = "SHOAL_KERNEL_PEER_HELPER"

func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == netHelperArg {
		os.Exit(netHelper(os.Args[2]))
	}
	if sock := os.Getenv(peerHelperEnv); sock != "" {
		os.Exit(peerHelper(sock))
	}
	os.Exit(m.Run())
}

func peerHelper(sock string) int {
	c, err := net.Dial("unix", sock)
	if err != nil {
		os.Stdout.WriteString("dial: " + err.Error())
		return 0
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"kernel.info"}` + "\n"))
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if err != nil {
		os.Stdout.WriteString("closed")
		return 0
	}
	os.Stdout.Write(buf[:n])
	return 0
}

func TestForeignPeerIsClosed(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	k := startKernel(t)
	// Open the socket to everyone so only the peer check stands in the way.
	os.Chmod(filepath.Dir(k.sock), 0o755)
	os.Chmod(k.sock, 0o777)
	// Copy the test binary where another user may run it.
	binDir := shortDir(t)
	os.Chmod(binDir, 0o755)
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(binDir, "helper")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(uid uint32) string {
		cmd := exec.Command(bin, "-test.run=^$")
		cmd.Dir = binDir
		cmd.Env = append(os.Environ(), peerHelperEnv+"="+k.sock)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		out, err := cmd.Output()
		if err != nil {
			t.Skipf("cannot run helper as uid %d: %v", uid, err)
		}
		return string(out)
	}
	if got := run(65534); got != "closed" {
		t.Errorf("foreign uid got %q, want the connection closed", got)
	}
	if got := run(0); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result"`) {
		t.Errorf("root peer got %q", got)
	}
}

// TestRuntimeDirLoginFallback: with XDG_RUNTIME_DIR unset, <run>/<uid>
// (systemd's runtime directory) is used when it is ours with mode 0700,
// as client.SocketCandidates looks.
func TestRuntimeDirLoginFallback(t *testing.T) {
	run := t.TempDir()
	mine := filepath.Join(run, strconv.Itoa(os.Getuid()))
	env := func(k string) string { return map[string]string{"TMPDIR": "/var/tmp"}[k] }
	uid := "shoal-" + strconv.Itoa(os.Getuid())
	if got := runtimeDir(env, run); got != "/var/tmp/"+uid+"/shoal" {
		t.Fatalf("without %s: %s", mine, got)
	}
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := runtimeDir(env, run); got != "/var/tmp/"+uid+"/shoal" {
		t.Fatalf("a 0755 login dir was used: %s", got)
	}
	if err := os.Chmod(mine, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := runtimeDir(env, run); got != filepath.Join(mine, "shoal") {
		t.Fatalf("with %s: %s", mine, got)
	}
	xenv := func(k string) string { return map[string]string{"XDG_RUNTIME_DIR": "relative"}[k] }
	if got := runtimeDir(xenv, run); got != "/tmp/"+uid+"/shoal" {
		t.Fatalf("a relative XDG_RUNTIME_DIR fell back to the login dir: %s", got)
	}
}
