package userconfig

import (
	"time"
)

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
