// Package prompt renders the REPL's prompt from the configuration
// (userconfig.Prompt) and a snapshot of facts taken once per prompt: the
// directory (home shown as `~`), the git branch (read from .git/HEAD by
// walking up, never by running git), the last status when it was not
// zero, user, host, time and jobs. It touches nothing itself: the caller
// supplies the facts and the file reader, so a redraw costs no I/O.
package prompt

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/userconfig"
)

// State is the snapshot one prompt is rendered from.
type State struct {
	// Dir is the working directory (absolute); Home the user's home ("" if
	// unknown).
	Dir, Home string
	// Status is the last statement's exit status (0: success).
	Status int
	// Branch is the git branch or short commit ("" outside a repository).
	Branch string
	// User and Host name the user and machine; SSH says the session is
	// remote (they show only then, unless show_always).
	User, Host string
	SSH        bool
	// Now is the time shown by $time.
	Now time.Time
	// Jobs counts background jobs.
	Jobs int
	// Color allows ANSI styles.
	Color bool
	// Git is the repository's status marks (nil: unknown, shown as
	// nothing).
	Git *GitStatus
	// Duration is how long the last line took (0: nothing ran).
	Duration time.Duration
	// Principal is who the session acts as; Agent says it is a token's
	// principal rather than the person.
	Principal string
	Agent     bool
	// Leash is the policy the session runs under ("allow-all" standalone).
	Leash string
	// Reef lists the tools Reef constrains here ("go@1.22 node@20").
	Reef string
}

// Modules are the placeholder names Render knows.
var Modules = []string{"directory", "git_branch", "git_status", "exit_status", "character", "username", "hostname", "time",
	"jobs", "cmd_duration", "principal", "leash", "reef", "indent"}

// Render renders the left prompt. The legacy template ({cwd}, {branch},
// {status}) is used when it is set and format.left is the default.
func Render(p *userconfig.Prompt, s State) string {
	if p.Template != "" && p.Format.Left == userconfig.DefaultPromptLeft {
		return renderTemplate(p.Template, s)
	}
	return expand(p.Format.Left, func(name string) (string, bool) { return module(p, name, s) })
}

// Right is the right prompt (format.right), "" when none is set.
func Right(p *userconfig.Prompt, s State) string {
	return expand(p.Format.Right, func(name string) (string, bool) { return module(p, name, s) })
}

// Transient is what an accepted line's prompt becomes (format.transient),
// "" when [transient] is not enabled.
func Transient(p *userconfig.Prompt, s State) string {
	if !p.Transient.Enabled {
		return ""
	}
	return expand(p.Format.Transient, func(name string) (string, bool) { return module(p, name, s) })
}

// Continuation is the prompt for the second and later lines of an entry.
func Continuation(p *userconfig.Prompt, s State) string {
	return expand(p.Format.Continuation, func(name string) (string, bool) { return module(p, name, s) })
}

// Module renders the one module name of p from s ("" when it shows
// nothing now), and false when name is no module (for shoal prompt
// explain and bench).
func Module(p *userconfig.Prompt, name string, s State) (string, bool) {
	for _, m := range Modules {
		if m == name {
			return module(p, name, s)
		}
	}
	return "", false
}

// Unknown lists the placeholders of format that are not modules (for a
// warning at start).
func Unknown(format string) []string {
	var out []string
	expand(format, func(name string) (string, bool) {
		for _, m := range Modules {
			if m == name {
				return "", true
			}
		}
		out = append(out, name)
		return "", true
	})
	return out
}

// expand replaces each `$name` or `${name}` in format with what sub gives;
// a name sub does not know stays as written. `$$` is a dollar sign.
func expand(format string, sub func(string) (string, bool)) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '$' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		if format[i+1] == '$' {
			b.WriteByte('$')
			i++
			continue
		}
		start, end := i+1, i+1
		var next int
		if format[i+1] == '{' {
			close := strings.IndexByte(format[i+2:], '}')
			if close < 0 {
				b.WriteByte(c)
				continue
			}
			start, end = i+2, i+2+close
			next = end + 1
		} else {
			for end < len(format) && isNameByte(format[end]) {
				end++
			}
			next = end
		}
		if end == start {
			b.WriteByte(c)
			continue
		}
		if v, ok := sub(format[start:end]); ok {
			b.WriteString(v)
		} else {
			b.WriteString(format[i:next])
		}
		i = next - 1
	}
	return b.String()
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// paint applies a style string (palette names allowed) when colour is on.
func paint(p *userconfig.Prompt, style, text string, s State) string {
	if !s.Color || text == "" {
		return text
	}
	st, err := userconfig.ParseStyle(style, p.Style.Map())
	if err != nil {
		return text
	}
	return st.Paint(text)
}

// module renders one placeholder; ok is false for an unknown name.
func module(p *userconfig.Prompt, name string, s State) (string, bool) {
	m := &p.Module
	switch name {
	case "indent":
		return "", true
	case "directory":
		if !m.Directory.Enabled {
			return "", true
		}
		path := Directory(s.Dir, s.Home, m.Directory.HomeSymbol, m.Directory.TruncateTo)
		text := expand(m.Directory.Format, func(n string) (string, bool) {
			if n == "path" {
				return path, true
			}
			return "", false
		})
		return paint(p, m.Directory.Style, text, s), true
	case "git_branch":
		if !m.GitBranch.Enabled || s.Branch == "" {
			return "", true
		}
		br := s.Branch
		if n := m.GitBranch.TruncateTo; n > 0 && len([]rune(br)) > n {
			br = string([]rune(br)[:n]) + m.GitBranch.TruncateSymbol
		}
		text := expand(m.GitBranch.Format, func(n string) (string, bool) {
			switch n {
			case "symbol":
				return m.GitBranch.Symbol, true
			case "branch":
				return br, true
			}
			return "", false
		})
		return paint(p, m.GitBranch.Style, text, s), true
	case "exit_status":
		if !m.ExitStatus.Enabled || (s.Status == 0 && !m.ExitStatus.ShowOnSuccess) {
			return "", true
		}
		text := expand(m.ExitStatus.Format, func(n string) (string, bool) {
			if n == "status" {
				return strconv.Itoa(s.Status), true
			}
			return "", false
		})
		return paint(p, m.ExitStatus.Style, text, s), true
	case "character":
		if !m.Character.Enabled {
			return "", true
		}
		if s.Status != 0 {
			return paint(p, m.Character.ErrorStyle, m.Character.ErrorSymbol, s), true
		}
		return paint(p, m.Character.SuccessStyle, m.Character.SuccessSymbol, s), true
	case "username", "hostname":
		hm, v := m.Username, s.User
		if name == "hostname" {
			hm, v = m.Hostname, s.Host
		}
		if !hm.Enabled || v == "" || (!s.SSH && !hm.ShowAlways) {
			return "", true
		}
		text := expand(hm.Format, func(n string) (string, bool) {
			if n == "name" {
				return v, true
			}
			return "", false
		})
		return paint(p, hm.Style, text, s), true
	case "time":
		if !m.Time.Enabled || s.Now.IsZero() {
			return "", true
		}
		return paint(p, m.Time.Style, Strftime(m.Time.Format, s.Now), s), true
	case "git_status", "cmd_duration", "principal", "leash", "reef":
		return moreModule(p, name, s), true
	case "jobs":
		if !m.Jobs.Enabled || s.Jobs < max(1, m.Jobs.Threshold) {
			return "", true
		}
		text := expand(m.Jobs.Format, func(n string) (string, bool) {
			switch n {
			case "symbol":
				return m.Jobs.Symbol, true
			case "count":
				return strconv.Itoa(s.Jobs), true
			}
			return "", false
		})
		return paint(p, m.Jobs.Style, text, s), true
	}
	return "", false
}

// Directory shows dir with home replaced by homeSymbol, keeping the last
// truncateTo components when it is above zero.
func Directory(dir, home, homeSymbol string, truncateTo int) string {
	dir = filepath.Clean(dir)
	prefix, rest := "", dir
	if home != "" && home != "/" {
		home = filepath.Clean(home)
		if dir == home {
			return homeSymbol
		}
		if r, ok := strings.CutPrefix(dir, home+"/"); ok {
			prefix, rest = homeSymbol+"/", r
		}
	}
	if truncateTo > 0 {
		parts := strings.Split(strings.TrimPrefix(rest, "/"), "/")
		if len(parts) > truncateTo {
			return strings.Join(parts[len(parts)-truncateTo:], "/")
		}
	}
	return prefix + rest
}

// renderTemplate fills the legacy template's {cwd}, {branch}, {status}.
func renderTemplate(t string, s State) string {
	r := strings.NewReplacer(
		"{cwd}", Directory(s.Dir, s.Home, "~", 0),
		"{branch}", s.Branch,
		"{status}", strconv.Itoa(s.Status),
		"{user}", s.User,
		"{host}", s.Host,
	)
	out := r.Replace(t)
	if !strings.HasSuffix(out, " ") {
		out += " "
	}
	return out
}

// Strftime formats t with %H %M %S %Y %m %d %y %p %I %%; other text is
// literal.
func Strftime(format string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 >= len(format) {
			b.WriteByte(format[i])
			continue
		}
		i++
		switch format[i] {
		case 'H':
			b.WriteString(t.Format("15"))
		case 'I':
			b.WriteString(t.Format("03"))
		case 'M':
			b.WriteString(t.Format("04"))
		case 'S':
			b.WriteString(t.Format("05"))
		case 'Y':
			b.WriteString(t.Format("2006"))
		case 'y':
			b.WriteString(t.Format("06"))
		case 'm':
			b.WriteString(t.Format("01"))
		case 'd':
			b.WriteString(t.Format("02"))
		case 'p':
			b.WriteString(t.Format("PM"))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}
