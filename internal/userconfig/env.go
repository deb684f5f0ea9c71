package userconfig

import (
	"fmt"
	"strconv"
	"strings"
)

// envOverride is one environment variable that sets one key.
type envOverride struct {
	name, key string
	set       func(c *Config, v string) error
}

func boolEnv(dst func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		switch strings.ToLower(v) {
		case "1", "true", "yes", "on":
			*dst(c) = true
		case "0", "false", "no", "off":
			*dst(c) = false
		default:
			return fmt.Errorf("%q is not a boolean (1/0, true/false, yes/no, on/off)", v)
		}
		return nil
	}
}

func intEnv(dst func(*Config) *int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%q is not an integer", v)
		}
		*dst(c) = n
		return nil
	}
}

func strEnv(dst func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error { *dst(c) = v; return nil }
}

// envOverrides is the documented table of SHOAL_* variables, applied in
// order after the files.
var envOverrides = []envOverride{
	{"SHOAL_PROMPT_TEMPLATE", "prompt.template", strEnv(func(c *Config) *string { return &c.Prompt.Template })},
	{"SHOAL_PROMPT_LEFT", "prompt.format.left", strEnv(func(c *Config) *string { return &c.Prompt.Format.Left })},
	{"SHOAL_PROMPT_RIGHT", "prompt.format.right", strEnv(func(c *Config) *string { return &c.Prompt.Format.Right })},
	{"SHOAL_HISTORY_ENABLED", "history.enabled", boolEnv(func(c *Config) *bool { return &c.History.Enabled })},
	{"SHOAL_HISTORY", "history.enabled", boolEnv(func(c *Config) *bool { return &c.History.Enabled })},
	{"SHOAL_HISTORY_MAX_ENTRIES", "history.max_entries", intEnv(func(c *Config) *int { return &c.History.MaxEntries })},
	{"SHOAL_HISTORY_FILE", "history.path", strEnv(func(c *Config) *string { return &c.History.Path })},
	{"SHOAL_HISTORY_DEDUP", "history.dedup", boolEnv(func(c *Config) *bool { return &c.History.Dedup })},
	{"SHOAL_RENDER_COLOR", "render.color", boolEnv(func(c *Config) *bool { return &c.Render.Color })},
	{"SHOAL_RENDER_WIDTH", "render.width", intEnv(func(c *Config) *int { return &c.Render.Width })},
	{"SHOAL_RENDER_PAGING", "render.paging", strEnv(func(c *Config) *string { return &c.Render.Paging })},
	{"SHOAL_RENDER_PAGER", "render.pager", strEnv(func(c *Config) *string { return &c.Render.Pager })},
	{"SHOAL_EDITOR_MODE", "editor.mode", strEnv(func(c *Config) *string { return &c.Editor.Mode })},
	{"SHOAL_EDITOR_BRACKETED_PASTE", "editor.bracketed_paste", boolEnv(func(c *Config) *bool { return &c.Editor.BracketedPaste })},
	{"SHOAL_COMPLETION_FUZZY", "completion.fuzzy", boolEnv(func(c *Config) *bool { return &c.Completion.Fuzzy })},
	{"SHOAL_COMPLETION_CASE_INSENSITIVE", "completion.case_insensitive", boolEnv(func(c *Config) *bool { return &c.Completion.CaseInsensitive })},
	{"SHOAL_COMPLETION_MAX_RESULTS", "completion.max_results", intEnv(func(c *Config) *int { return &c.Completion.MaxResults })},
	{"SHOAL_COMPLETION_MENU", "completion.menu", boolEnv(func(c *Config) *bool { return &c.Completion.Menu })},
}

// applyEnv applies the SHOAL_* overrides, then NO_COLOR (set to anything
// non-empty) turns colour off, last.
func applyEnv(c *Config, env Env) error {
	if env.Getenv == nil {
		return nil
	}
	for _, o := range envOverrides {
		v := env.Getenv(o.name)
		if v == "" {
			continue
		}
		if err := o.set(c, v); err != nil {
			return &Error{File: "$" + o.name, Key: o.key, Msg: err.Error()}
		}
	}
	if env.Getenv("NO_COLOR") != "" {
		c.Render.Color = false
	}
	return nil
}
