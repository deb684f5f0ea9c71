package prompt

import (
	"fmt"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/userconfig"
)

// moreModule renders git_status, cmd_duration, principal, leash and reef.
func moreModule(p *userconfig.Prompt, name string, s State) string {
	m := &p.Module
	sub := func(format, style string, vars map[string]string) string {
		text := expand(format, func(n string) (string, bool) {
			v, ok := vars[n]
			return v, ok
		})
		return paint(p, style, text, s)
	}
	switch name {
	case "git_status":
		g := m.GitStatus
		if !g.Enabled || s.Git == nil {
			return ""
		}
		marks, ab := s.Git.Marks(g)
		if marks == "" && ab == "" {
			return ""
		}
		return sub(g.Format, g.Style, map[string]string{"all_status": marks, "ahead_behind": ab})
	case "cmd_duration":
		d := m.CmdDuration
		if !d.Enabled || s.Duration <= 0 || s.Duration < time.Duration(d.MinMs)*time.Millisecond {
			return ""
		}
		return sub(d.Format, d.Style, map[string]string{"duration": FormatDuration(s.Duration)})
	case "principal":
		pm := m.Principal
		if !pm.Enabled || s.Principal == "" {
			return ""
		}
		sym := pm.HumanSymbol
		if s.Agent {
			sym = pm.AgentSymbol
		}
		return sub(pm.Format, pm.Style, map[string]string{"symbol": sym, "name": clean(s.Principal)})
	case "leash":
		if !m.Leash.Enabled || s.Leash == "" {
			return ""
		}
		return sub(m.Leash.Format, m.Leash.Style, map[string]string{"mode": clean(s.Leash)})
	case "reef":
		if !m.Reef.Enabled || s.Reef == "" {
			return ""
		}
		return sub(m.Reef.Format, m.Reef.Style, map[string]string{"tools": clean(s.Reef)})
	}
	return ""
}

// FormatDuration is a duration as a person reads it: 850ms, 2.4s,
// 1m05s, 2h03m.
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", d.Seconds()), "0"), ".") + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
