package policy

import (
	"fmt"
	"path"
	"strings"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
)

// effect verdicts, ordered so the larger dominates.
type level int

const (
	lvAllow level = iota
	lvAsk
	lvDeny
)

// Decide judges a derived plan against the grants:
//
//   - a plan with no effects that is not opaque (pure evaluation) is Allow,
//     whatever auto_apply says;
//   - each concrete effect is allowed when Allows says so and denied
//     otherwise; an opaque effect, a Dynamic effect of any kind, an effect
//     without its subject, an effect kind the policy does not know, and an
//     opaque plan with no opaque effect listed are judged by the opaque
//     setting (deny, ask = approval, allow);
//   - any denied effect makes the plan Deny; otherwise any effect that
//     asks makes it ApprovalRequired; otherwise auto_apply decides: "never"
//     asks, "in-grant" allows, "reversible" allows a plan whose
//     reversibility is reversible and asks for any other.
//
// Reasons holds one line per effect that is not simply allowed, in plan
// order, then the auto_apply reason if that is what asked.
func (g *Grants) Decide(p *leash.Plan) Decision {
	if p == nil || (len(p.Effects) == 0 && !p.Opaque) {
		return Decision{Verdict: Allow}
	}
	var reasons []string
	worst := lvAllow
	note := func(lv level, why string) {
		worst = max(worst, lv)
		reasons = append(reasons, why)
	}
	if g == nil || !g.Defined {
		who := ""
		if g != nil {
			who = g.Principal
		}
		return Decision{Verdict: Deny, Reasons: []string{fmt.Sprintf("principal %q has no policy: every effect is denied", who)}}
	}
	sawOpaque := false
	for _, e := range p.Effects {
		subject, concrete := g.subject(e)
		if !concrete {
			sawOpaque = true
			if lv, why := g.opaque(describe(e)); lv != lvAllow {
				note(lv, why)
			}
			continue
		}
		if !g.Allows(e.Kind, subject) {
			note(lvDeny, fmt.Sprintf("%s: %s", describe(e), grantName(e.Kind)))
		}
	}
	if p.Opaque && !sawOpaque {
		what := "the program"
		if len(p.Notes) > 0 {
			what = "the program (" + strings.Join(p.Notes, "; ") + ")"
		}
		if lv, why := g.opaque("opaque " + what); lv != lvAllow {
			note(lv, why)
		}
	}
	switch worst {
	case lvDeny:
		return Decision{Verdict: Deny, Reasons: reasons}
	case lvAsk:
		return Decision{Verdict: ApprovalRequired, Reasons: reasons}
	}
	switch g.autoApply() {
	case AutoInGrant:
		return Decision{Verdict: Allow}
	case AutoReversible:
		if p.Reversibility == leash.Reversible {
			return Decision{Verdict: Allow}
		}
		return Decision{Verdict: ApprovalRequired, Reasons: []string{
			fmt.Sprintf("auto_apply = \"reversible\" and the plan is %s", orUnknown(p.Reversibility))}}
	}
	return Decision{Verdict: ApprovalRequired, Reasons: []string{"auto_apply = \"never\": every plan with effects needs approval"}}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func (g *Grants) autoApply() AutoApply {
	switch g.AutoApply {
	case AutoInGrant, AutoReversible:
		return g.AutoApply
	}
	return AutoNever
}

// opaque judges one effect that is not concrete by the opaque setting.
func (g *Grants) opaque(what string) (level, string) {
	switch g.Opaque {
	case OpaqueAllow:
		return lvAllow, ""
	case OpaqueAsk:
		return lvAsk, what + ": not statically known (opaque = \"ask\")"
	}
	return lvDeny, what + ": not statically known (opaque = \"deny\")"
}

// subject returns the subject Allows judges for e, and false when e is not
// concrete (opaque, dynamic, missing its subject, or a kind policy does not
// know).
func (g *Grants) subject(e leash.Effect) (string, bool) {
	if e.Dynamic || e.Kind == leash.EffectOpaque {
		return "", false
	}
	switch e.Kind {
	case host.FSRead, host.FSWrite, host.FSDelete:
		if !strings.HasPrefix(e.Path, "/") {
			return "", false
		}
		return path.Clean(e.Path), true
	case host.ProcSpawn:
		return e.Program, e.Program != ""
	case host.EnvRead, host.EnvWrite, host.SysRead, SecretUse, host.NetConnect, NetListen:
		return e.Name, e.Name != ""
	case host.Clock, SessionWrite, JournalRead:
		return "", true
	}
	return "", false
}

// describe renders an effect for a reason: "fs_write /etc/passwd".
func describe(e leash.Effect) string {
	s := string(e.Kind)
	for _, f := range [...]string{e.Path, e.Program, e.Name} {
		if f != "" {
			return s + " " + f
		}
	}
	return s
}

// grantName says which policy field refused an effect kind.
func grantName(k host.Effect) string {
	switch k {
	case host.FSRead:
		return "no fs.read grant matches"
	case host.FSWrite:
		return "no fs.write grant matches"
	case host.FSDelete:
		return "no fs.delete grant matches"
	case host.ProcSpawn:
		return "not in proc_spawn"
	case host.NetConnect:
		return "not in net_connect"
	case NetListen:
		return "not in net_listen"
	case host.EnvRead:
		return "not in env_read"
	case host.EnvWrite:
		return "not in env_write"
	case SecretUse:
		return "not in secret_use"
	case host.SysRead:
		return "not in sys_read"
	case host.Clock:
		return "time = false"
	case SessionWrite:
		return "session_write = false"
	case JournalRead:
		return "journal_read = false"
	}
	return "unknown effect kind"
}
