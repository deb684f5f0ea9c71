package userconfig

import (
	"fmt"
	"strconv"
	"strings"
)

// envOverride is one environment variable that sets one key: the field's
// accessor is one of str, boolean and integer, by the field's type. (Plain
// function literals, so the table is static data; closures made by helper
// calls would be built by a package initialiser at every start.)
type envOverride struct {
	name, key string
	str       func(*Config) *string
	boolean   func(*Config) *bool
	integer   func(*Config) *int
}

// set parses v for the field and sets it.
func (o envOverride) set(c *Config, v string) error {
	switch {
	case o.boolean != nil:
		switch strings.ToLower(v) {
		case "1", "true", "yes", "on":
			*o.boolean(c) = true
		case "0", "false", "no", "off":
			*o.boolean(c) = false
		default:
			return fmt.Errorf("%q is not a boolean (1/0, true/false, yes/no, on/off)", v)
		}
	case o.integer != nil:
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%q is not an integer", v)
		}
		*o.integer(c) = n
	default:
		*o.str(c) = v
	}
	return nil
}

// envOverrides is the documented table of SHOAL_* variables, applied in
// order after the files.
var envOverrides = []envOverride{
	{name: "SHOAL_PROMPT_TEMPLATE", key: "prompt.template", str: func(c *Config) *string { return &c.Prompt.Template }},
	{name: "SHOAL_PROMPT_LEFT", key: "prompt.format.left", str: func(c *Config) *string { return &c.Prompt.Format.Left }},
	{name: "SHOAL_PROMPT_RIGHT", key: "prompt.format.right", str: func(c *Config) *string { return &c.Prompt.Format.Right }},
	{name: "SHOAL_HISTORY_ENABLED", key: "history.enabled", boolean: func(c *Config) *bool { return &c.History.Enabled }},
	{name: "SHOAL_HISTORY", key: "history.enabled", boolean: func(c *Config) *bool { return &c.History.Enabled }},
	{name: "SHOAL_HISTORY_MAX_ENTRIES", key: "history.max_entries", integer: func(c *Config) *int { return &c.History.MaxEntries }},
	{name: "SHOAL_HISTORY_FILE", key: "history.path", str: func(c *Config) *string { return &c.History.Path }},
	{name: "SHOAL_HISTORY_DEDUP", key: "history.dedup", boolean: func(c *Config) *bool { return &c.History.Dedup }},
	{name: "SHOAL_RENDER_COLOR", key: "render.color", boolean: func(c *Config) *bool { return &c.Render.Color }},
	{name: "SHOAL_RENDER_WIDTH", key: "render.width", integer: func(c *Config) *int { return &c.Render.Width }},
	{name: "SHOAL_RENDER_PAGING", key: "render.paging", str: func(c *Config) *string { return &c.Render.Paging }},
	{name: "SHOAL_RENDER_PAGER", key: "render.pager", str: func(c *Config) *string { return &c.Render.Pager }},
	{name: "SHOAL_EDITOR_MODE", key: "editor.mode", str: func(c *Config) *string { return &c.Editor.Mode }},
	{name: "SHOAL_EDITOR_BRACKETED_PASTE", key: "editor.bracketed_paste", boolean: func(c *Config) *bool { return &c.Editor.BracketedPaste }},
	{name: "SHOAL_COMPLETION_FUZZY", key: "completion.fuzzy", boolean: func(c *Config) *bool { return &c.Completion.Fuzzy }},
	{name: "SHOAL_COMPLETION_CASE_INSENSITIVE", key: "completion.case_insensitive", boolean: func(c *Config) *bool { return &c.Completion.CaseInsensitive }},
	{name: "SHOAL_COMPLETION_MAX_RESULTS", key: "completion.max_results", integer: func(c *Config) *int { return &c.Completion.MaxResults }},
	{name: "SHOAL_COMPLETION_MENU", key: "completion.menu", boolean: func(c *Config) *bool { return &c.Completion.Menu }},
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
