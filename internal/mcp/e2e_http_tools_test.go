package mcp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// startAgentKernel starts a kernel whose policy lets principal work in
// its directory (files, programs, the journal), with in-grant plans
// applied without approval.
func startAgentKernel(t testing.TB, principal string) *kernel {
	t.Helper()
	k := newBase(t)
	policy := filepath.Join(k.base, "policy.toml")
	if err := os.WriteFile(policy, fmt.Appendf(nil, `[principal.%[1]q]
opaque = "allow"
auto_apply = "in-grant"
journal_read = true
proc_spawn = ["cat"]
env_read = ["*"]
[principal.%[1]q.fs]
read = [%[2]q, "/usr/**", "/bin/**", "/lib/**", "/etc/**"]
write = [%[2]q]
delete = [%[2]q]
`, principal, k.dir+"/**"), 0o600); err != nil {
		t.Fatal(err)
	}
	k.start(t, "--policy", policy)
	return k
}

// TestE2EHTTPTools: every tool answers over HTTP (a session revision and
// the stateless one) as it does over stdio: a result whose
// structuredContent is an object, or a tool error with the kernel's code;
// a planned write is applied and a value read back by its URI.
func TestE2EHTTPTools(t *testing.T) {
	k := startAgentKernel(t, "agent:tools")
	h := startHTTP(t, k)
	secret := newToken(t, k, "agent:tools")
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		s := mustConnectHTTP(t, h, secret, v)
		c := ctx(t)
		object := func(name string, args map[string]any) map[string]any {
			t.Helper()
			res := s.call(t, c, name, args)
			var m map[string]any
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &m); err != nil || m == nil {
				t.Fatalf("%s %s: structuredContent %s is not an object (%s)", v, name, b, text(res))
			}
			if res.IsError {
				m["isError"] = true
			}
			return m
		}
		ok := func(name string, args map[string]any) map[string]any {
			t.Helper()
			m := object(name, args)
			if m["isError"] == true {
				t.Fatalf("%s %s %v: %v", v, name, args, m)
			}
			return m
		}
		exec := ok("shoal_exec", map[string]any{"src": "[1, 2, 3].map(x => x * 14).sum()"})
		if val, _ := exec["value"].(map[string]any); val["v"] != float64(84) {
			t.Fatalf("%s exec: %v", v, exec)
		}
		ok("shoal_get", map[string]any{"ref": exec["ref"]})
		file := "planned-" + strings.ReplaceAll(v, "-", "") + ".txt"
		plan := ok("shoal_plan", map[string]any{"src": fmt.Sprintf(`"planned".save(%q)`, file)})
		ref, _ := plan["plan_ref"].(string)
		if ref == "" {
			t.Fatalf("%s plan: %v", v, plan)
		}
		ok("shoal_apply", map[string]any{"plan_ref": ref})
		if b, err := os.ReadFile(filepath.Join(k.dir, file)); err != nil || string(b) != "planned" {
			t.Fatalf("%s: the applied plan wrote %q, %v", v, b, err)
		}
		ok("shoal_journal", map[string]any{"limit": 3})
		object("shoal_cap_request", map[string]any{"plan_ref": ref})
		if m := object("shoal_cancel", map[string]any{"task": "task:99999"}); m["isError"] != true {
			t.Fatalf("%s: cancelling no task: %v", v, m)
		}
		ok("shoal_pty_list", map[string]any{})
		pty := "pty:99999"
		if m := object("shoal_pty_open", map[string]any{"cmd": "cat"}); m["isError"] != true {
			pty, _ = m["pty_id"].(string)
		}
		object("shoal_pty_send", map[string]any{"pty_id": pty, "input": "hi\n"})
		object("shoal_pty_read", map[string]any{"pty_id": pty})
		object("shoal_pty_resize", map[string]any{"pty_id": pty, "cols": 100, "rows": 30})
		object("shoal_pty_close", map[string]any{"pty_id": pty})
		uri, _ := exec["uri"].(string)
		if rc := read(t, s, uri); !strings.Contains(rc.Text, "84") {
			t.Fatalf("%s: reading %s: %q", v, uri, rc.Text)
		}
	}
	h.alive(t)
}

// TestE2EHTTPSubscription: over a 2025-11-25 session, a resource
// subscription's updates reach the client on the session's SSE stream.
func TestE2EHTTPSubscription(t *testing.T) {
	k := startAgentKernel(t, "agent:sub")
	h := startHTTP(t, k)
	s := mustConnectHTTP(t, h, newToken(t, k, "agent:sub"), "2025-11-25")
	if err := s.cs.Subscribe(ctx(t), &sdk.SubscribeParams{URI: "shoal://journal"}); err != nil {
		t.Fatal(err)
	}
	execOK(t, ctx(t), s, "7")
	c := ctx(t) // a guard against a hang, not a timing assertion
	for !contains(s.notes.updates(), "shoal://journal") {
		select {
		case <-s.notes.changed:
		case <-c.Done():
			t.Fatalf("no journal update after an exec:\n%s", h.errText())
		}
	}
}
