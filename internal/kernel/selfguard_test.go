package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/policy"
)

// TestSessionGateGuardsSelf: a gate built with the kernel's pids refuses
// /proc/self whatever its grants (every op, as policy.Everything gives),
// and still after its grants narrow; the owner's gate (no pids) is not
// touched by the rule.
func TestSessionGateGuardsSelf(t *testing.T) {
	pids := func() []int { return []int{os.Getpid()} }
	ctx := context.Background()
	op := host.Op{Effect: host.FSRead, Target: "/proc/self/environ"}
	guarded := newSessionGate(policy.Everything("agent:x"), "/home/x", pids)
	if err := guarded.Authorize(ctx, op); !errors.Is(err, host.ErrDenied) || !strings.Contains(err.Error(), host.SelfRefusal) {
		t.Errorf("non-owner gate with every grant: %v, want the kernel's process refused", err)
	}
	guarded.narrow([]string{"fs.read"})
	if err := guarded.Authorize(ctx, op); !errors.Is(err, host.ErrDenied) {
		t.Errorf("after narrowing: %v, want denied", err)
	}
	if err := guarded.Authorize(ctx, host.Op{Effect: host.FSRead, Target: "/etc/hostname"}); err != nil {
		t.Errorf("a granted read after narrowing: %v", err)
	}
	owner := newSessionGate(policy.Everything("uid:0"), "/home/x", nil)
	if err := owner.Authorize(ctx, op); err != nil {
		t.Errorf("owner gate: %v, want allowed", err)
	}
}

// TestTokenSessionCannotReadKernel: in a kernel in this process, a token
// principal granted all of /proc is refused the kernel's environment
// (denied, at run time: the plan is in its grants) and may read another
// process's stat, while the owner still reads /proc/self.
func TestTokenSessionCannotReadKernel(t *testing.T) {
	k := startPolicyKernel(t, func(dir, base string) string {
		return fmt.Sprintf(`[principal."agent:p"]
opaque = "allow"
[principal."agent:p".fs]
read = ["/proc/**", %q]
`, dir+"/**")
	})
	_, secret := k.token(t, "agent:p", "worker")
	c := k.dial(t)
	c.attach("", secret)
	r := c.call("exec", map[string]any{"src": "cat /proc/self/environ"})
	wantGateDenied(t, "cat /proc/self/environ", r)
	if !strings.Contains(r.Error.Message, host.SelfRefusal) {
		t.Errorf("refusal %q does not say why", r.Error.Message)
	}
	wantGateDenied(t, "ls /proc/self/fd", c.call("exec", map[string]any{"src": fmt.Sprintf("ls /proc/%d/fd", os.Getpid())}))
	if _, err := os.Stat("/proc/1/stat"); err == nil && os.Getpid() != 1 {
		c.ok("exec", map[string]any{"src": "cat /proc/1/stat"}, nil)
	}
	c.ok("exec", map[string]any{"src": "1 + 1"}, nil)

	owner := k.dial(t)
	owner.attach("", "")
	owner.ok("exec", map[string]any{"src": "cat /proc/self/status"}, nil)
}

// TestTokenGlobListsNoKernelFD: a glob over every process's descriptors,
// by a token principal granted /proc, names none of the kernel's.
func TestTokenGlobListsNoKernelFD(t *testing.T) {
	k := startPolicyKernel(t, func(dir, base string) string {
		return fmt.Sprintf(`[principal."agent:p"]
opaque = "allow"
[principal."agent:p".fs]
read = ["/proc/**", %q]
`, dir+"/**")
	})
	_, secret := k.token(t, "agent:p", "worker")
	c := k.dial(t)
	c.attach("", secret)
	me := fmt.Sprintf("/proc/%d/", os.Getpid())
	for _, pat := range []string{"/proc/*/fd/*", "/proc/*/task/*/fd/*", "/proc/*/cwd/*", "/proc/*/*"} {
		// The whole listing is judged in the session, so elision cannot
		// hide a name: does it hold one of the kernel's?
		src := fmt.Sprintf("let o = (echo %s).out\n[o.contains(%q), o.contains(\"/proc/self/\"), o.contains(\"/proc/1/stat\")]", pat, me)
		var res execResult
		c.ok("exec", map[string]any{"src": src, "position": "value"}, &res)
		var got struct {
			V []struct {
				V bool `json:"v"`
			} `json:"v"`
		}
		if err := json.Unmarshal(res.Value, &got); err != nil || len(got.V) != 3 {
			t.Fatalf("%s: %s, %v", pat, res.Value, err)
		}
		if got.V[0].V || got.V[1].V {
			t.Errorf("%s listed the kernel's own: %s", pat, res.Value)
		}
		if pat == "/proc/*/*" && os.Getpid() != 1 && !got.V[2].V {
			t.Errorf("%s left out another process's stat: %s", pat, res.Value)
		}
	}
}
