//go:build linux

package hostile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/sandbox"
	"github.com/shoalgo/shoal/proto"
)

// selfRefusal is what a refusal of the kernel's own process says
// (host.SelfRefusal).
const selfRefusal = "the kernel's own process is not accessible"

// kernelSelfPolicy grants two token principals /proc for reading and
// writing: agent:proc what an agent that runs ps would be given, and
// agent:all every op a host can ask (its gate is then no gate at all but
// the kernel's own rule).
func kernelSelfPolicy(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	pol := filepath.Join(base, "policy.toml")
	work := os.TempDir() + "/hk*/work/**"
	text := fmt.Sprintf(`[principal."agent:proc"]
proc_spawn = ["*"]
env_read = ["PATH"]
sys_read = ["*"]
opaque = "allow"
[principal."agent:proc".fs]
read = ["/proc/**", "/dev/**", %[1]q, "/usr/**", "/bin/**", "/lib/**", "/lib64/**", "/etc/**"]
write = ["/proc/**", "/dev/**", %[1]q]

[principal."agent:all"]
proc_spawn = ["*"]
env_read = ["*"]
env_write = ["*"]
sys_read = ["*"]
secret_use = ["*"]
net_connect = ["*:*"]
time = true
session_write = true
journal_read = true
opaque = "allow"
[principal."agent:all".fs]
read = ["/**"]
write = ["/**"]
delete = ["/**"]
`, work)
	if err := os.WriteFile(pol, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return pol
}

// kernelThreads lists the thread ids of process pid.
func kernelThreads(t *testing.T, pid int) []string {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatalf("threads of %d: %v", pid, err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// supervisorOf finds the supervisor the kernel started: its child whose
// command line names the supervisor command. 0 when there is none.
func supervisorOf(t *testing.T, pid int) int {
	t.Helper()
	for _, tid := range kernelThreads(t, pid) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, tid))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			cmd, err := os.ReadFile("/proc/" + f + "/cmdline")
			if err == nil && strings.Contains(string(cmd), "__shoal_contain_supervisor") {
				n, _ := strconv.Atoi(f)
				return n
			}
		}
	}
	return 0
}

// TestKernelIsNotAFile: a token principal granted /proc (and, as
// agent:all, every op there is) cannot reach the kernel's own process
// through the filesystem: its environment, its descriptors (0 to 64, by
// /proc/self/fd, /proc/<pid>/fd and /dev/fd, read and written), its
// threads, the supervisor's pipe and environment, and its executable run
// as a program are each refused with the language error denied naming
// why. The kernel stays up (the owner's heartbeat is served throughout),
// the same session keeps working (pure evaluation, a granted read), and
// reads of other processes' stat, status and cmdline, as ps makes them,
// still work.
func TestKernelIsNotAFile(t *testing.T) {
	k := Start(t, Options{Flags: []string{"--policy", kernelSelfPolicy(t)}})
	hb := k.Heartbeat(t)
	pid := strconv.Itoa(k.Pid)
	if err := os.WriteFile(filepath.Join(k.Dir, "mine.txt"), []byte("mine-content"), 0o600); err != nil {
		t.Fatal(err)
	}
	sup := supervisorOf(t, k.Pid)
	if sup == 0 {
		t.Errorf("no supervisor found beside kernel %d", k.Pid)
	}
	tids := kernelThreads(t, k.Pid)
	if len(tids) < 2 {
		t.Fatalf("kernel threads %v", tids)
	}

	var reads, writes, spawns []string
	reads = append(reads,
		"/proc/self/environ", "/proc/"+pid+"/environ", "/proc/"+pid+"/status", "/proc/"+pid,
		"/proc/thread-self/environ", "/proc/thread-self/status",
		"/proc//self/environ", "/proc/./self/environ", "/proc/self/../self/environ", "/proc/self/",
		"/proc/self/cwd/mine.txt", "/proc/self/root/etc/hostname", "/proc/self/exe",
		"/proc/self/mem", "/proc/self/maps", "/proc/net/unix", "/proc/mounts",
		"/dev/stdin", "/dev/stderr",
	)
	for _, tid := range tids {
		reads = append(reads, "/proc/"+pid+"/task/"+tid+"/environ", "/proc/"+tid+"/environ", "/proc/"+tid+"/task/"+tid+"/status")
	}
	// Every descriptor the kernel could hold at this size by the two
	// names the finding used; the other spellings for the first few.
	for n := 0; n <= 64; n++ {
		fds := []string{"/proc/self/fd/", "/dev/fd/"}
		if n <= 4 {
			fds = append(fds, "/proc/"+pid+"/fd/", "/proc/thread-self/fd/", "/proc/"+pid+"/fdinfo/")
		}
		for _, p := range fds {
			reads = append(reads, p+strconv.Itoa(n))
			writes = append(writes, p+strconv.Itoa(n))
		}
	}
	// And every descriptor it really holds beyond 64 (a write-only one
	// sits at 251 here).
	held, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", k.Pid))
	if err != nil {
		t.Fatalf("the kernel's descriptors: %v", err)
	}
	t.Logf("the kernel holds %d descriptors", len(held))
	for _, e := range held {
		if n, err := strconv.Atoi(e.Name()); err == nil && n > 64 {
			t.Logf("descriptor %s, beyond 64, is tried too", e.Name())
			for _, p := range []string{"/proc/self/fd/", "/dev/fd/", "/proc/" + pid + "/fd/"} {
				reads = append(reads, p+e.Name())
				writes = append(writes, p+e.Name())
			}
		}
	}
	if sup != 0 {
		s := strconv.Itoa(sup)
		reads = append(reads, "/proc/"+s+"/environ", "/proc/"+s+"/fd/3", "/proc/"+s+"/status", "/proc/"+s+"/cmdline")
		writes = append(writes, "/proc/"+s+"/fd/3", "/proc/"+s+"/fd/0")
		for _, tid := range kernelThreads(t, sup) {
			reads = append(reads, "/proc/"+s+"/task/"+tid+"/environ", "/proc/"+tid+"/stat")
		}
	}
	spawns = append(spawns, "/proc/self/exe", "/proc/"+pid+"/exe", "/proc/thread-self/exe")
	writes = append(writes, "/proc/self/environ", "/proc/self/mem", "/dev/stdout")

	for _, principal := range []string{"agent:proc", "agent:all"} {
		t.Run(principal, func(t *testing.T) {
			c := k.Attach(t, "attack", k.Token(t, principal))
			ctx := Ctx(t)
			refused := func(src string) {
				t.Helper()
				ectx, cancel := context.WithTimeout(ctx, 30*time.Second)
				defer cancel()
				res, err := c.Exec(ectx, client.ExecParams{Src: src})
				if err == nil {
					t.Errorf("%s: served %.200s", src, res.Render)
					return
				}
				if code, ok := client.ErrorCode(err); !ok || code != proto.CodeRaised {
					t.Errorf("%s: %v, want RAISED denied", src, err)
					return
				}
				var data struct {
					Code string `json:"code"`
				}
				if derr := client.ErrorData(err, &data); derr != nil || data.Code != "denied" {
					t.Errorf("%s: language error %q (%v), want denied", src, data.Code, err)
				}
				if !strings.Contains(err.Error(), selfRefusal) {
					t.Errorf("%s: %q does not say the kernel's process is not accessible", src, err)
				}
			}
			for _, p := range reads {
				refused("cat " + p)
			}
			refused("ls /proc/self/fd")
			refused("ls /proc/" + pid + "/task")
			refused("ls /dev/fd")
			refused("stat /proc/self")
			// A link the principal makes is judged by what it resolves to.
			tag := strings.TrimPrefix(principal, "agent:")
			for _, ln := range []string{"ln -s /proc/self/environ env-" + tag, "ln -s /proc/self/fd fd-" + tag, "ln -s /dev/stdin in-" + tag} {
				if _, err := c.Exec(ctx, client.ExecParams{Src: ln}); err != nil {
					t.Fatalf("%s: %v", ln, err)
				}
			}
			refused("cat env-" + tag)
			refused("ls fd-" + tag)
			refused("cat fd-" + tag + "/0")
			refused(fmt.Sprintf("%q.append(%q)", "x", "fd-"+tag+"/1"))
			refused("cat in-" + tag)
			refused("cp -r /proc dump")
			refused("cp -r /proc/" + pid + " dump")
			for i, p := range writes {
				method := "append"
				if i%2 == 0 {
					method = "save"
				}
				refused(fmt.Sprintf("%q.%s(%q)", "x\n", method, p))
			}
			for _, p := range spawns {
				refused(p + " --version")
				refused(fmt.Sprintf("run(%q)", p))
				// A terminal program is a spawn like any other.
				err := c.Call(ctx, proto.MethodPTYOpen, map[string]any{"cmd": p, "args": []string{"--version"}}, nil)
				if code, ok := client.ErrorCode(err); !ok || code != proto.CodeLeashDenied || !strings.Contains(err.Error(), selfRefusal) {
					t.Errorf("pty.open %s: %v, want -32010 naming the kernel's process", p, err)
				}
			}
			k.Alive(t)

			// The same session goes on: pure evaluation, a granted read,
			// and what ps reads of other processes.
			res, err := c.Exec(ctx, client.ExecParams{Src: "1 + 1"})
			if err != nil || strings.ReplaceAll(string(res.Value), " ", "") != `{"$":"int","v":2}` {
				t.Fatalf("1 + 1 after the attack: %+v, %v", res, err)
			}
			res, err = c.Exec(ctx, client.ExecParams{Src: "cat mine.txt"})
			if err != nil || !strings.Contains(res.Render, "mine-content") {
				t.Fatalf("a granted read after the attack: %+v, %v", res, err)
			}
			me := strconv.Itoa(os.Getpid())
			for _, p := range []string{"/proc/1/stat", "/proc/" + me + "/stat", "/proc/" + me + "/status", "/proc/" + me + "/cmdline", "/proc/meminfo"} {
				if _, err := c.Exec(ctx, client.ExecParams{Src: "cat " + p}); err != nil {
					t.Errorf("cat %s: %v", p, err)
				}
			}
			// Listing /proc works, and a glob over it (judged whole in the
			// session, so elision cannot hide an answer) names this test's
			// process.
			if _, err := c.Exec(ctx, client.ExecParams{Src: "ls /proc"}); err != nil {
				t.Errorf("ls /proc: %v", err)
			}
			res, err = c.Exec(ctx, client.ExecParams{Src: fmt.Sprintf("(echo /proc/*).out.contains(%q)", "/proc/"+me+" "), Position: client.PositionVal})
			if err != nil || !strings.Contains(string(res.Value), "true") {
				t.Errorf("ls /proc lists this test's pid %s: %+v, %v", me, res, err)
			}
			// A program the principal runs is no way round: under Landlock
			// it may not reach the kernel's /proc entries (a sandboxed
			// process cannot ptrace-read one outside its domain), so its
			// environment and descriptors stay out of reach.
			if principal == "agent:proc" && sandbox.Probe().FS {
				script := fmt.Sprintf(`cat /proc/%[1]s/environ; for n in $(seq 0 64); do (echo x > /proc/%[1]s/fd/$n) 2>/dev/null && echo wrote $n; (head -c 1 /proc/%[1]s/fd/$n) 2>/dev/null && echo read $n; done; echo done`, pid)
				ectx, cancel := context.WithTimeout(ctx, 60*time.Second)
				res, err := c.Exec(ectx, client.ExecParams{Src: fmt.Sprintf("(sh -c %q).out", script), Position: client.PositionVal})
				cancel()
				if err != nil {
					t.Fatalf("a program probing the kernel: %v", err)
				}
				if out := string(res.Value); strings.Contains(out, "SHOAL_TOKEN_STORE") || strings.Contains(out, "wrote") || strings.Contains(out, "read ") || !strings.Contains(out, "done") {
					t.Errorf("a sandboxed program reached the kernel: %.300s", out)
				}
				k.Alive(t)
			}

			// A child of the kernel is another process: ps may read it.
			if _, err := c.Exec(ctx, client.ExecParams{Src: "/usr/bin/sleep 30", Async: true}); err != nil {
				t.Fatalf("starting a child: %v", err)
			}
			child := waitChild(t, k.Pid, "/usr/bin/sleep")
			for _, f := range []string{"stat", "status", "cmdline"} {
				if _, err := c.Exec(ctx, client.ExecParams{Src: "cat /proc/" + child + "/" + f}); err != nil {
					t.Errorf("cat /proc/%s/%s (a child): %v", child, f, err)
				}
			}
			refused("cat /proc/" + child + "/environ")
			refused("ls /proc/" + child + "/fd")
			if p, err := os.FindProcess(mustAtoi(child)); err == nil {
				p.Kill()
			}
		})
	}
	hb.Stop(t)
	k.Alive(t)
}

// waitChild waits (up to 30 s) for a child of the kernel whose command
// line starts with prog, and returns its pid.
func waitChild(t *testing.T, pid int, prog string) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, tid := range kernelThreads(t, pid) {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, tid))
			for _, f := range strings.Fields(string(b)) {
				cmd, _ := os.ReadFile("/proc/" + f + "/cmdline")
				if strings.HasPrefix(string(cmd), prog+"\x00") {
					return f
				}
			}
		}
	}
	t.Fatalf("no child %s of the kernel", prog)
	return ""
}

func mustAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
