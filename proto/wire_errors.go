package proto

import "errors"

// Sentinel causes of a *WireError; test them with errors.Is.
var (
	ErrSyntax       = errors.New("malformed JSON")
	ErrUnknownTag   = errors.New("unknown $ tag")
	ErrBadShape     = errors.New("bad value shape")
	ErrColumnLength = errors.New("table column length differs from n")
	ErrBadBase64    = errors.New("bad base64")
	ErrBadDateTime  = errors.New("bad datetime")
	ErrBadTime      = errors.New("bad time of day")
	ErrBadNumber    = errors.New("bad number")
	ErrTooDeep      = errors.New("value nested too deeply")
)

// WireError reports why a wire value was rejected: where (Path, in the
// form `$.v[2].cols.name[0]`), the sentinel cause (Err) and a detail.
type WireError struct {
	Path   string
	Err    error
	Detail string
}

func (e *WireError) Error() string {
	s := "wire value"
	if e.Path != "" {
		s += " at $" + e.Path
	}
	s += ": " + e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel cause.
func (e *WireError) Unwrap() error { return e.Err }

// within prefixes the error's path with seg and returns it.
func within(err error, seg string) error {
	if we, ok := err.(*WireError); ok {
		we.Path = seg + we.Path
	}
	return err
}
