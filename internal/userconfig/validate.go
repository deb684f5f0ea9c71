package userconfig

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// validate checks what types cannot: allowed values and bounds. An error
// names file and, when data holds the key, its line and column.
func validate(c *Config, file string, data []byte) error {
	bad := func(key, format string, args ...any) error {
		e := &Error{File: file, Key: key, Msg: fmt.Sprintf(format, args...)}
		if data != nil {
			e.Line, e.Col = keyPosition(data, key)
		}
		return e
	}
	if c.Version != 1 {
		return bad("version", "unsupported config version %d (expected 1)", c.Version)
	}
	if c.History.MaxEntries <= 0 {
		return bad("history.max_entries", "must be greater than 0")
	}
	if c.History.MaxEntries > MaxHistoryEntries {
		return bad("history.max_entries", "must be at most %d", MaxHistoryEntries)
	}
	if len(c.History.Ignore) > MaxListEntries {
		return bad("history.ignore", "more than %d patterns", MaxListEntries)
	}
	for i, p := range c.History.Ignore {
		if p == "" {
			return bad("history.ignore", "pattern %d is empty", i)
		}
	}
	if !slices.Contains([]string{PagingAuto, PagingHead, PagingNever}, c.Render.Paging) {
		return bad("render.paging", "must be `auto`, `head` or `never`, not %q", c.Render.Paging)
	}
	if c.Render.Width < 0 {
		return bad("render.width", "must not be negative")
	}
	if c.Render.HeadRows < 0 {
		return bad("render.head_rows", "must not be negative")
	}
	if !slices.Contains([]string{PrecisionSecond, PrecisionMilli, PrecisionMicro, PrecisionNano}, c.Render.TimePrecision) {
		return bad("render.time_precision", "must be `second`, `millisecond`, `microsecond` or `nanosecond`, not %q", c.Render.TimePrecision)
	}
	if c.Editor.Mode != ModeEmacs && c.Editor.Mode != ModeVi {
		return bad("editor.mode", "must be `emacs` or `vi`, not %q", c.Editor.Mode)
	}
	if len(c.Editor.Keybindings) > MaxMapEntries {
		return bad("editor.keybindings", "more than %d bindings", MaxMapEntries)
	}
	for chord, action := range c.Editor.Keybindings {
		if chord == "" || action == "" {
			return bad("editor.keybindings", "a binding needs a chord and an action")
		}
	}
	if c.Completion.MaxResults <= 0 {
		return bad("completion.max_results", "must be greater than 0")
	}
	if len(c.Aliases) > MaxMapEntries {
		return bad("aliases", "more than %d aliases", MaxMapEntries)
	}
	for name := range c.Aliases {
		if name == "" {
			return bad("aliases", "an alias name must not be empty")
		}
		if strings.IndexFunc(name, unicode.IsSpace) >= 0 {
			return bad("aliases", "alias name `%s` must not contain whitespace", name)
		}
	}
	if len(c.Env) > MaxMapEntries {
		return bad("env", "more than %d variables", MaxMapEntries)
	}
	for name := range c.Env {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			return bad("env", "bad environment name %q", name)
		}
	}
	if len(c.Init.Files) > MaxListEntries {
		return bad("init.files", "more than %d files", MaxListEntries)
	}
	for _, key := range sortedKeys(c.Colors.fields()) {
		s := c.Colors.fields()[key]
		if _, err := ParseStyle(s, nil); err != nil {
			return bad("colors."+key, "%v", err)
		}
	}
	return validatePrompt(&c.Prompt, file, data, "prompt.")
}

// fields lists the colours by key.
func (c *Colors) fields() map[string]string {
	return map[string]string{
		"keyword": c.Keyword, "literal": c.Literal, "command": c.Command, "string": c.String,
		"number": c.Number, "flag": c.Flag, "operator": c.Operator, "method": c.Method,
		"comment": c.Comment, "error": c.Error, "variable": c.Variable, "path": c.Path,
		"diag_error": c.DiagError, "diag_hint": c.DiagHint, "diag_caret": c.DiagCaret, "diag_gutter": c.DiagGutter,
	}
}

// validatePrompt checks the prompt's formats and styles; prefix is the
// dotted path of the prompt table in data ("prompt." in shoal.toml, "" in
// prompt.toml).
func validatePrompt(p *Prompt, file string, data []byte, prefix string) error {
	bad := func(key, format string, args ...any) error {
		e := &Error{File: file, Key: prefix + key, Msg: fmt.Sprintf(format, args...)}
		if data != nil {
			e.Line, e.Col = keyPosition(data, prefix+key)
		}
		return e
	}
	texts := map[string]string{
		"template": p.Template, "format.left": p.Format.Left, "format.continuation": p.Format.Continuation,
		"module.character.success_symbol": p.Module.Character.SuccessSymbol,
		"module.character.error_symbol":   p.Module.Character.ErrorSymbol,
		"module.directory.home_symbol":    p.Module.Directory.HomeSymbol,
		"module.directory.format":         p.Module.Directory.Format,
		"module.git_branch.symbol":        p.Module.GitBranch.Symbol,
		"module.git_branch.format":        p.Module.GitBranch.Format,
		"module.exit_status.format":       p.Module.ExitStatus.Format,
		"module.time.format":              p.Module.Time.Format,
		"module.jobs.format":              p.Module.Jobs.Format,
		"format.right":                    p.Format.Right,
		"format.transient":                p.Format.Transient,
		"module.git_status.format":        p.Module.GitStatus.Format,
		"module.git_status.ahead":         p.Module.GitStatus.Ahead,
		"module.git_status.behind":        p.Module.GitStatus.Behind,
		"module.git_status.diverged":      p.Module.GitStatus.Diverged,
		"module.git_status.staged":        p.Module.GitStatus.Staged,
		"module.git_status.unstaged":      p.Module.GitStatus.Unstaged,
		"module.git_status.untracked":     p.Module.GitStatus.Untracked,
		"module.git_status.conflicted":    p.Module.GitStatus.Conflicted,
		"module.cmd_duration.format":      p.Module.CmdDuration.Format,
		"module.principal.format":         p.Module.Principal.Format,
		"module.principal.human_symbol":   p.Module.Principal.HumanSymbol,
		"module.principal.agent_symbol":   p.Module.Principal.AgentSymbol,
		"module.leash.format":             p.Module.Leash.Format,
		"module.reef.format":              p.Module.Reef.Format,
	}
	for _, k := range sortedKeys(texts) {
		v := texts[k]
		if len(v) > MaxFormatBytes {
			return bad(k, "longer than %d bytes", MaxFormatBytes)
		}
		if strings.ContainsAny(v, "\x00\x1b\r\n") {
			return bad(k, "must not hold control characters")
		}
	}
	if p.Module.Directory.TruncateTo < 0 {
		return bad("module.directory.truncate_to", "must not be negative")
	}
	if p.Module.CmdDuration.MinMs < 0 {
		return bad("module.cmd_duration.min_ms", "must not be negative")
	}
	if p.Module.GitBranch.TruncateTo < 0 {
		return bad("module.git_branch.truncate_to", "must not be negative")
	}
	palette := p.Style.Map()
	for _, k := range sortedKeys(palette) {
		v := palette[k]
		if _, err := ParseStyle(v, nil); err != nil {
			return bad("style."+k, "%v", err)
		}
	}
	styles := map[string]string{
		"module.character.success_style": p.Module.Character.SuccessStyle,
		"module.character.error_style":   p.Module.Character.ErrorStyle,
		"module.directory.style":         p.Module.Directory.Style,
		"module.git_branch.style":        p.Module.GitBranch.Style,
		"module.exit_status.style":       p.Module.ExitStatus.Style,
		"module.username.style":          p.Module.Username.Style,
		"module.hostname.style":          p.Module.Hostname.Style,
		"module.time.style":              p.Module.Time.Style,
		"module.jobs.style":              p.Module.Jobs.Style,
		"module.git_status.style":        p.Module.GitStatus.Style,
		"module.cmd_duration.style":      p.Module.CmdDuration.Style,
		"module.principal.style":         p.Module.Principal.Style,
		"module.leash.style":             p.Module.Leash.Style,
		"module.reef.style":              p.Module.Reef.Style,
	}
	for _, k := range sortedKeys(styles) {
		v := styles[k]
		if _, err := ParseStyle(v, palette); err != nil {
			return bad(k, "%v", err)
		}
	}
	return nil
}

// Map is the palette by name.
func (p Palette) Map() map[string]string {
	return map[string]string{"ok": p.OK, "error": p.Error, "warn": p.Warn, "info": p.Info, "muted": p.Muted, "accent": p.Accent}
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
