package kernel

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/internal/stdlib"
	"github.com/shoalgo/shoal/internal/syntax"
)

// BenchmarkExecLeash measures one exec round trip on a real kernel over a
// Unix socket for the kernel owner (no plan is derived: its grants allow
// everything) and for a token principal under a policy (the plan is
// derived and judged before the program runs, the gate asks about every
// effect, its spawns run in the OS sandbox). The owner's pure exec is the
// floor of the same run:
//
//	go test -run '^$' -bench ExecLeash -count 5 ./internal/kernel/
func BenchmarkExecLeash(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skipf("true not available: %v", err)
	}
	truePath, _ = filepath.EvalSymlinks(truePath)
	sock, agent := benchLeashKernel(b, truePath)
	for _, bc := range []struct {
		name, token, src string
	}{
		{"owner-pure", "", "1 + 1"},
		{"policy-pure", agent, "1 + 1"},
		{"owner-builtin", "", "pwd"},
		{"policy-builtin", agent, "pwd"},
		{"owner-spawn", "", "^" + truePath},
		{"policy-spawn", agent, "^" + truePath},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := dialBench(sock, bc.token)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			params := []byte(`{"src":` + strconv.Quote(bc.src) + `}`)
			id := 10
			for b.Loop() {
				id++
				resp, err := c.call(id, "exec", params)
				if err != nil {
					b.Fatal(err)
				}
				if resp.Error != nil {
					b.Fatalf("exec %q: error %d %s", bc.src, resp.Error.Code, resp.Error.Message)
				}
			}
		})
	}
}

// dialBench attaches a raw connection, with a token when one is given.
func dialBench(sock, token string) (*rawLoadConn, error) {
	if token == "" {
		return dialRaw(sock, "bench")
	}
	c, err := dialRaw(sock, "bench-unused")
	if err != nil {
		return nil, err
	}
	params, _ := json.Marshal(map[string]string{"session": "bench", "token": token})
	resp, err := c.call(2, "session.attach", params)
	if err == nil && resp.Error != nil {
		err = fmt.Errorf("attach: error %d %s", resp.Error.Code, resp.Error.Message)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// benchLeashKernel starts a kernel whose policy lets agent:bench read its
// working directory and the system's programs and run truePath; it
// returns the socket and the agent's bearer secret.
func benchLeashKernel(tb testing.TB, truePath string) (sock, secret string) {
	tb.Helper()
	base := loadTempDir(tb)
	dir := filepath.Join(base, "work")
	if err := os.Mkdir(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	store := filepath.Join(base, "tokens.json")
	_, secret, err := auth.Open(store).Create("agent:bench", "bench", nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	pol := testPolicy(tb, fmt.Sprintf(`[principal."agent:bench"]
proc_spawn = [%q]
env_read = ["PATH", "HOME"]
[principal."agent:bench".fs]
read = [%q, "/usr/**", "/lib/**", "/lib64/**", "/bin/**", "/etc/**"]
`, truePath, dir+"/**"))
	sock = serveBenchKernel(tb, base, Config{Version: "bench", Dir: dir, TokenStore: store, Policy: pol,
		Env: []string{"HOME=" + base, "PATH=/usr/bin:/bin"}})
	return sock, secret
}

// BenchmarkExecLeashCheck measures what leashCheck adds to a policy
// principal's exec, in process: parse, derive and judge, beside the parse
// alone that every exec does anyway (the floor):
//
//	go test -run '^$' -bench ExecLeashCheck -count 5 ./internal/kernel/
func BenchmarkExecLeashCheck(b *testing.B) {
	g := testPolicy(b, `[principal."agent:bench"]
proc_spawn = ["git"]
env_read = ["PATH"]
[principal."agent:bench".fs]
read = ["/work/**"]
`).For("agent:bench", false)
	le := leash.Env{Dir: "/work", Home: "/home/u", Registry: stdlib.Registry()}
	for _, src := range []string{"1 + 1", "pwd", "ls src", `git status; cat README.md`} {
		b.Run("parse/"+src, func(b *testing.B) {
			for b.Loop() {
				if _, err := syntax.Parse(src, syntax.ParseOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("check/"+src, func(b *testing.B) {
			for b.Loop() {
				prog, err := syntax.Parse(src, syntax.ParseOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if d := g.Decide(leash.Derive(prog, le)); d.Verdict != policy.Allow {
					b.Fatalf("%s: %+v", src, d)
				}
			}
		})
	}
}
