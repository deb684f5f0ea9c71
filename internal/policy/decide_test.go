package policy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
)

const agentDoc = `
[principal."agent"]
fs.read = ["/work/**", "/usr/**"]
fs.write = ["/work/**"]
fs.delete = ["/work/tmp/**"]
proc_spawn = ["git", "/opt/tool/bin/run"]
env_read = ["PATH", "HOME"]
sys_read = ["cpus"]
net_connect = ["*.example.com:443", "[::1]:8080"]
net_listen = [9000]
%s
`

func agent(t *testing.T, extra string) *Grants {
	t.Helper()
	if !strings.Contains(extra, "time") {
		extra += "\ntime = true"
	}
	p, err := Parse([]byte(strings.Replace(agentDoc, "%s", extra, 1)), "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	return p.For("agent", false)
}

func fx(kind host.Effect, subject string) leash.Effect {
	switch kind {
	case host.FSRead, host.FSWrite, host.FSDelete:
		return leash.Effect{Kind: kind, Path: subject}
	case host.ProcSpawn:
		return leash.Effect{Kind: kind, Program: subject, Argv: []string{subject}}
	}
	return leash.Effect{Kind: kind, Name: subject}
}

func plan(rev string, effects ...leash.Effect) *leash.Plan {
	return &leash.Plan{Effects: effects, Reversibility: rev}
}

func TestDecide(t *testing.T) {
	cases := []struct {
		name  string
		extra string
		plan  *leash.Plan
		want  Verdict
		why   string // a reason must contain this
	}{
		{"pure allowed even with never", `auto_apply = "never"`, plan(leash.Reversible), Allow, ""},
		{"nil plan", "", nil, Allow, ""},
		{"read in grant", "", plan(leash.Reversible, fx(host.FSRead, "/work/a.txt")), Allow, ""},
		{"grant root itself", "", plan(leash.Reversible, fx(host.FSRead, "/work")), Allow, ""},
		{"read outside", "", plan(leash.Reversible, fx(host.FSRead, "/etc/passwd")), Deny, "fs_read /etc/passwd: no fs.read grant"},
		{"dotdot path is normalised first", "", plan(leash.Reversible, fx(host.FSRead, "/work/../etc/passwd")), Deny, "fs.read"},
		{"write vs delete", "", plan(leash.Irreversible, fx(host.FSWrite, "/work/x"), fx(host.FSDelete, "/work/x")), Deny, "fs_delete /work/x"},
		{"delete in grant", "", plan(leash.Irreversible, fx(host.FSDelete, "/work/tmp/a/b")), Allow, ""},
		{"spawn bare", "", plan(leash.Irreversible, fx(host.ProcSpawn, "git")), Allow, ""},
		{"spawn abs basename", "", plan(leash.Irreversible, fx(host.ProcSpawn, "/usr/bin/git")), Allow, ""},
		{"spawn writable copy", "", plan(leash.Irreversible, fx(host.ProcSpawn, "/work/bin/git")), Deny, "proc_spawn"},
		{"spawn exact path", "", plan(leash.Irreversible, fx(host.ProcSpawn, "/opt/tool/bin/run")), Allow, ""},
		{"spawn bare name of an exact path", "", plan(leash.Irreversible, fx(host.ProcSpawn, "run")), Allow, ""},
		{"spawn other path of that name", "", plan(leash.Irreversible, fx(host.ProcSpawn, "/usr/bin/run")), Deny, "proc_spawn"},
		{"spawn other", "", plan(leash.Irreversible, fx(host.ProcSpawn, "rm")), Deny, "proc_spawn rm: not in proc_spawn"},
		{"env", "", plan(leash.Reversible, fx(host.EnvRead, "PATH")), Allow, ""},
		{"env all", "", plan(leash.Reversible, fx(host.EnvRead, "*")), Deny, "env_read"},
		{"env write", "", plan(leash.Reversible, fx(host.EnvWrite, "PATH")), Deny, "env_write"},
		{"time", "", plan(leash.Reversible, leash.Effect{Kind: host.Clock}), Allow, ""},
		{"time off", "time = false", plan(leash.Reversible, leash.Effect{Kind: host.Clock}), Deny, "time = false"},
		{"sys", "", plan(leash.Reversible, fx(host.SysRead, "cpus"), fx(host.SysRead, "hostname")), Deny, "sys_read hostname"},
		{"net", "", plan(leash.Irreversible, fx(host.NetConnect, "api.example.com:443")), Allow, ""},
		{"net port", "", plan(leash.Irreversible, fx(host.NetConnect, "api.example.com:80")), Deny, "net_connect"},
		{"net v6", "", plan(leash.Irreversible, fx(host.NetConnect, "[::1]:8080")), Allow, ""},
		{"listen", "", plan(leash.Irreversible, fx(NetListen, "9000")), Allow, ""},
		{"listen other", "", plan(leash.Irreversible, fx(NetListen, "9001")), Deny, "net_listen"},
		{"session write off", "", plan(leash.Reversible, leash.Effect{Kind: SessionWrite}), Deny, "session_write"},
		{"secret", "", plan(leash.Reversible, fx(SecretUse, "tok")), Deny, "secret_use"},
		{"opaque ask default", "", plan(leash.Irreversible, leash.Effect{Kind: leash.EffectOpaque, Name: "eval", Dynamic: true}), ApprovalRequired, "opaque"},
		{"opaque deny", `opaque = "deny"`, plan(leash.Irreversible, leash.Effect{Kind: leash.EffectOpaque, Name: "eval", Dynamic: true}), Deny, "opaque = \"deny\""},
		{"opaque allow", `opaque = "allow"`, plan(leash.Irreversible, leash.Effect{Kind: leash.EffectOpaque, Name: "eval", Dynamic: true}), Allow, ""},
		{"dynamic known kind is opaque", "", plan(leash.Irreversible, leash.Effect{Kind: host.ProcSpawn, Name: "run", Dynamic: true}), ApprovalRequired, "proc_spawn run"},
		{"fs without path is opaque", "", plan(leash.Conditional, leash.Effect{Kind: host.FSWrite, Name: "trash"}), ApprovalRequired, "fs_write trash"},
		{"unknown kind is opaque", `opaque = "deny"`, plan(leash.Irreversible, leash.Effect{Kind: "teleport", Name: "x"}), Deny, "teleport"},
		{"opaque plan flag", "", &leash.Plan{Opaque: true, Reversibility: leash.Irreversible, Notes: []string{"source of a file"}}, ApprovalRequired, "source of a file"},
		{"deny dominates ask", "", plan(leash.Irreversible, leash.Effect{Kind: leash.EffectOpaque, Dynamic: true}, fx(host.FSRead, "/etc/x")), Deny, "/etc/x"},
		{"never asks", `auto_apply = "never"`, plan(leash.Reversible, fx(host.FSRead, "/work/a")), ApprovalRequired, "never"},
		{"reversible allows reversible", `auto_apply = "reversible"`, plan(leash.Reversible, fx(host.FSRead, "/work/a")), Allow, ""},
		{"reversible asks irreversible", `auto_apply = "reversible"`, plan(leash.Irreversible, fx(host.FSWrite, "/work/a")), ApprovalRequired, "irreversible"},
		{"ask dominates auto allow", `auto_apply = "in-grant"`, plan(leash.Reversible, fx(host.FSRead, "/work/a"), leash.Effect{Kind: leash.EffectOpaque, Dynamic: true}), ApprovalRequired, "opaque"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := agent(t, c.extra).Decide(c.plan)
			if d.Verdict != c.want {
				t.Fatalf("verdict %s, want %s (%v)", d.Verdict, c.want, d.Reasons)
			}
			if c.want == Allow && len(d.Reasons) != 0 {
				t.Errorf("allow with reasons %v", d.Reasons)
			}
			if c.why != "" && !strings.Contains(strings.Join(d.Reasons, "\n"), c.why) {
				t.Errorf("reasons %q do not mention %q", d.Reasons, c.why)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	p := Default("uid:1000")
	owner := p.For("uid:1000", true)
	stranger := p.For("agent:x", false)
	all := plan(leash.Irreversible,
		fx(host.FSDelete, "/etc/passwd"), fx(host.ProcSpawn, "/bin/rm"), fx(host.EnvWrite, "PATH"),
		fx(host.NetConnect, "example.org:22"), fx(NetListen, "1"), fx(SecretUse, "s"), fx(host.SysRead, "pid"),
		leash.Effect{Kind: host.Clock}, leash.Effect{Kind: SessionWrite}, leash.Effect{Kind: JournalRead},
		leash.Effect{Kind: leash.EffectOpaque, Dynamic: true})
	if d := owner.Decide(all); d.Verdict != Allow {
		t.Errorf("owner: %+v", d)
	}
	if !owner.CanApprove() || owner.CanSelfApprove() || !owner.CanReadAllJournal() {
		t.Errorf("owner flags: %+v", owner)
	}
	if d := stranger.Decide(all); d.Verdict != Deny || !strings.Contains(d.Reasons[0], "no policy") {
		t.Errorf("stranger: %+v", d)
	}
	if d := stranger.Decide(plan(leash.Reversible)); d.Verdict != Allow {
		t.Errorf("stranger pure: %+v", d)
	}
	if stranger.CanApprove() || stranger.CanReadAllJournal() {
		t.Errorf("stranger flags: %+v", stranger)
	}
	err := stranger.Authorizer().Authorize(context.Background(), host.Op{Effect: host.FSRead, Target: "/tmp"})
	if !errors.Is(err, host.ErrDenied) {
		t.Errorf("stranger gate: %v", err)
	}
	// An explicit entry for the owner replaces everything.
	q, err := Parse([]byte("[principal.\"uid:1000\"]\nfs.read = [\"/x/**\"]\n"), "/h")
	if err != nil {
		t.Fatal(err)
	}
	if d := q.For("uid:1000", true).Decide(plan(leash.Reversible, fx(host.FSRead, "/etc/x"))); d.Verdict != Deny {
		t.Errorf("owner entry: %+v", d)
	}
}

func TestAuthorizer(t *testing.T) {
	g := agent(t, "")
	auth := g.Authorizer()
	ctx := context.Background()
	cases := []struct {
		op   host.Op
		want bool
	}{
		{host.Op{Effect: host.FSRead, Target: "/work/a"}, true},
		{host.Op{Effect: host.FSRead, Target: "/work/a", Real: "/work/b"}, true},
		{host.Op{Effect: host.FSRead, Target: "/work/link", Real: "/etc/shadow"}, false},
		{host.Op{Effect: host.FSRead, Target: "/work/../etc/shadow"}, false},
		{host.Op{Effect: host.FSRead, Target: "work/a"}, false},
		{host.Op{Effect: host.FSRead, Target: ""}, false},
		{host.Op{Effect: host.FSWrite, Target: "/usr/bin/x"}, false},
		{host.Op{Effect: host.FSDelete, Target: "/work/tmp/x"}, true},
		{host.Op{Effect: host.ProcSpawn, Target: "/usr/bin/git", Argv: []string{"/usr/bin/git"}}, true},
		{host.Op{Effect: host.ProcSpawn, Target: "/usr/bin/git", Real: "/work/evil", Argv: []string{"git"}}, false},
		{host.Op{Effect: host.ProcSpawn, Target: "/work/bin/git", Argv: []string{"git"}}, false},
		{host.Op{Effect: host.ProcSpawn, Target: "/bin/sh", Argv: []string{"/bin/sh", "-c", "git"}}, false},
		{host.Op{Effect: host.ProcSpawn, Target: "/opt/tool/bin/run"}, true},
		{host.Op{Effect: host.ProcSpawn, Target: "/usr/bin/run"}, false},
		{host.Op{Effect: host.ProcSpawn, Target: "git"}, false}, // the host always asks with a path
		{host.Op{Effect: host.EnvRead, Target: "PATH"}, true},
		{host.Op{Effect: host.EnvRead, Target: "*"}, false},
		{host.Op{Effect: host.Clock}, true},
		{host.Op{Effect: host.SysRead, Target: "cpus"}, true},
		{host.Op{Effect: host.SysRead, Target: "hostname"}, false},
		{host.Op{Effect: "teleport", Target: "x"}, false},
	}
	for _, c := range cases {
		err := auth.Authorize(ctx, c.op)
		if got := err == nil; got != c.want {
			t.Errorf("%+v: allowed %v, want %v (%v)", c.op, got, c.want, err)
		}
		var de *host.DeniedError
		if err != nil && (!errors.As(err, &de) || de.Reason == "") {
			t.Errorf("%+v: refusal %T %v is not a reasoned *host.DeniedError", c.op, err, err)
		}
	}
}

func TestCaps(t *testing.T) {
	if err := ValidateCaps([]string{"fs.read", "proc.spawn", "approve"}); err != nil {
		t.Fatal(err)
	}
	if err := ValidateCaps([]string{"fs.read", "fs.reed"}); err == nil || !strings.Contains(err.Error(), "fs.reed") {
		t.Fatalf("unknown cap: %v", err)
	}
	owner := Everything("o")
	if n := owner.Narrow(nil); n.Decide(plan(leash.Irreversible, fx(host.FSWrite, "/x"))).Verdict != Allow || !n.Approve {
		t.Error("no caps must leave grants unchanged")
	}
	n := owner.Narrow([]string{"fs.read"})
	ctx := context.Background()
	if err := n.Authorizer().Authorize(ctx, host.Op{Effect: host.FSRead, Target: "/etc/hosts"}); err != nil {
		t.Errorf("fs.read cap: %v", err)
	}
	for _, op := range []host.Op{
		{Effect: host.FSWrite, Target: "/tmp/x"}, {Effect: host.FSDelete, Target: "/tmp/x"},
		{Effect: host.ProcSpawn, Target: "/bin/ls"}, {Effect: host.EnvRead, Target: "PATH"},
		{Effect: host.Clock}, {Effect: host.SysRead, Target: "pid"},
	} {
		if err := n.Authorizer().Authorize(ctx, op); err == nil {
			t.Errorf("fs.read token allowed %+v", op)
		}
	}
	if n.Approve || n.JournalReadAll || n.JournalRead || n.SessionWrite {
		t.Errorf("narrowed flags: %+v", n)
	}
	// Caps never widen: an agent without spawn grants gains none from proc.spawn.
	a := agent(t, "")
	w := a.Narrow([]string{"proc.spawn", "env.write"})
	if w.Allows(host.ProcSpawn, "rm") || w.Allows(host.EnvWrite, "PATH") || !w.Allows(host.ProcSpawn, "git") {
		t.Errorf("narrow widened or lost: %+v", w)
	}
	if owner.Allows(host.FSWrite, "/x") != true {
		t.Error("Narrow changed its receiver")
	}
}

func TestAuthorizerShortcut(t *testing.T) {
	if Everything("o").Authorizer() != host.AllowAll {
		t.Error("the owner's default grants should gate with AllowAll")
	}
	n := Everything("o").Narrow([]string{"fs.read", "fs.write", "fs.delete", "proc.spawn", "env.read", "sys.read", "net.connect"})
	if n.Authorizer() == host.AllowAll {
		t.Error("grants without time must not gate with AllowAll")
	}
	if agent(t, "").Authorizer() == host.AllowAll || Nothing("x").Authorizer() == host.AllowAll {
		t.Error("restricted grants gate with AllowAll")
	}
	// secret_use is a host op (Host.Secret): grants that name only some
	// secrets must judge every read of the store.
	g := Everything("o")
	g.SecretUse = []string{"tok"}
	a := g.Authorizer()
	if a == host.AllowAll {
		t.Fatal("grants naming one secret gate with AllowAll")
	}
	if err := a.Authorize(context.Background(), host.Op{Effect: host.SecretUse, Target: "tok"}); err != nil {
		t.Errorf("secret_use tok: %v", err)
	}
	if err := a.Authorize(context.Background(), host.Op{Effect: host.SecretUse, Target: "other"}); !errors.Is(err, host.ErrDenied) {
		t.Errorf("secret_use other: %v, want denied", err)
	}
}

// TestAllowsEveryPlan: only grants under which judging a plan could never
// refuse anything let a caller skip deriving plans.
func TestAllowsEveryPlan(t *testing.T) {
	if !Default("uid:0").For("uid:0", true).AllowsEveryPlan() {
		t.Error("the owner's default grants do not allow every plan")
	}
	if Nothing("agent:x").AllowsEveryPlan() || Default("uid:0").For("agent:x", false).AllowsEveryPlan() {
		t.Error("an unknown principal allows every plan")
	}
	for _, tc := range []struct {
		name   string
		narrow func(g *Grants)
		want   bool
	}{
		{"everything", func(*Grants) {}, true},
		{"approval for every plan", func(g *Grants) { g.AutoApply = AutoNever }, false},
		{"opaque asks", func(g *Grants) { g.Opaque = OpaqueAsk }, false},
		{"one env_write name", func(g *Grants) { g.EnvWrite = []string{"A"} }, false},
		{"no clock", func(g *Grants) { g.Time = false }, false},
		{"listening on named ports only", func(g *Grants) { g.NetListenAny = false }, false},
	} {
		g := Everything("a")
		tc.narrow(g)
		if got := g.AllowsEveryPlan(); got != tc.want {
			t.Errorf("%s: AllowsEveryPlan = %v, want %v", tc.name, got, tc.want)
		}
	}
	// A file cannot grant listening on any port, so a principal it names
	// is always judged.
	p, err := Parse([]byte(`[principal."a"]
fs.read = ["/**"]
fs.write = ["/**"]
fs.delete = ["/**"]
net_connect = ["*:*"]
proc_spawn = ["*"]
env_read = ["*"]
env_write = ["*"]
secret_use = ["*"]
sys_read = ["*"]
session_write = true
journal_read = true
time = true
opaque = "allow"
auto_apply = "in-grant"
`), "/home/a")
	if err != nil {
		t.Fatal(err)
	}
	if p.For("a", false).AllowsEveryPlan() {
		t.Error("a policy entry allows every plan")
	}
}
