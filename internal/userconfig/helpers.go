package userconfig

import (
	"strings"
	"time"
)

// Keep reports whether entry goes into the history after previous (the
// entry before it, "" when none): not when history is disabled, the entry
// is blank, starts with a space under IgnoreSpace, equals previous under
// Dedup, or matches an Ignore pattern as a whole (`*` any run, `?` one
// character).
func (h History) Keep(entry, previous string) bool {
	if !h.Enabled || strings.TrimSpace(entry) == "" {
		return false
	}
	if h.IgnoreSpace && strings.HasPrefix(entry, " ") {
		return false
	}
	if h.Dedup && entry == previous {
		return false
	}
	for _, p := range h.Ignore {
		if wildcard(p, entry) {
			return false
		}
	}
	return true
}

// wildcard matches s against a pattern of `*` and `?` and literal text,
// iteratively (one backtrack point), so a hostile pattern costs at most
// len(p)*len(s) steps.
func wildcard(p, s string) bool {
	pr, sr := []rune(p), []rune(s)
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(sr) {
		switch {
		case pi < len(pr) && (pr[pi] == '?' || pr[pi] == sr[si]):
			pi++
			si++
		case pi < len(pr) && pr[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(pr) && pr[pi] == '*' {
		pi++
	}
	return pi == len(pr)
}

// TimeUnit is the unit datetimes are displayed to: time.Second for
// "second", and so on down to time.Nanosecond.
func (r Render) TimeUnit() time.Duration {
	switch r.TimePrecision {
	case PrecisionMilli:
		return time.Millisecond
	case PrecisionMicro:
		return time.Microsecond
	case PrecisionNano:
		return time.Nanosecond
	}
	return time.Second
}

// Style is the parsed style of a highlight class (keyword, literal,
// command, string, number, flag, operator, method, comment, error,
// variable, path) or a diagnostic part (diag_error, diag_hint, diag_caret,
// diag_gutter); the zero Style for an unknown class or when colour is off.
func (c *Config) Style(class string) Style {
	if !c.Render.Color {
		return Style{}
	}
	s, ok := c.Colors.fields()[class]
	if !ok {
		return Style{}
	}
	st, err := ParseStyle(s, nil)
	if err != nil {
		return Style{}
	}
	return st
}
