package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// EvalFunc evaluates src with dir as the working directory. It returns the
// final value or a *value.Error / *syntax.Error.
type EvalFunc func(ctx context.Context, dir, src string) (value.Value, error)

// Result is the outcome of one case.
type Result struct {
	File string `json:"file"`
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	Want string `json:"want"`
	Got  string `json:"got"`
}

// grace is how long a case may overrun its timeout after cancellation
// before it is abandoned.
const grace = 2 * time.Second

// Run prepares dir with the case's fixtures and runs the case through
// eval under timeout. Panics and overruns are failures, never crashes.
func Run(ctx context.Context, c *Case, dir string, timeout time.Duration, eval EvalFunc) Result {
	r := Result{File: c.File, Name: c.Name, Want: c.Want()}
	if c.Problem != "" {
		r.Got = "malformed case: " + c.Problem
		return r
	}
	if err := MakeFixtures(dir, c.Fixture); err != nil {
		r.Got = "fixture: " + err.Error()
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	type outcome struct {
		v   value.Value
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{err: fmt.Errorf("panic: %v\n%s", p, debug.Stack())}
			}
		}()
		v, err := eval(ctx, dir, c.Src)
		done <- outcome{v, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		select {
		case o = <-done:
		case <-time.After(grace):
			r.Got = fmt.Sprintf("timeout: no result %v after cancellation at %v", grace, timeout)
			return r
		}
	}
	r.OK, r.Got = Check(c, o.v, o.err)
	return r
}

// MakeFixtures creates each fixture under dir: names ending in "/" as
// directories, others as empty files, parents created as needed.
func MakeFixtures(dir string, fixtures []string) error {
	for _, f := range fixtures {
		if filepath.IsAbs(f) || strings.HasPrefix(filepath.Clean(f), "..") {
			return fmt.Errorf("fixture %q escapes the case directory", f)
		}
		p := filepath.Join(dir, filepath.FromSlash(f))
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Want describes the case's expectation for reports.
func (c *Case) Want() string {
	switch {
	case c.Value != nil:
		return "value " + *c.Value
	case c.ParseError:
		if c.ParseContains != "" {
			return fmt.Sprintf("parse error containing %q", c.ParseContains)
		}
		return "parse error"
	case c.ErrorContains != "":
		return fmt.Sprintf("error[%s] containing %q", c.Error, c.ErrorContains)
	}
	return "error[" + c.Error + "]"
}

// Describe renders an evaluation outcome for reports.
func Describe(v value.Value, err error) string {
	if err == nil {
		if v == nil {
			v = value.Nil
		}
		return "value " + value.Inline(v)
	}
	var pe *syntax.Error
	if errors.As(err, &pe) {
		s := "parse error: " + pe.Msg
		if pe.Hint != "" {
			s += " (hint: " + pe.Hint + ")"
		}
		return s
	}
	var ve *value.Error
	if errors.As(err, &ve) {
		s := "error[" + ve.Code + "]: " + ve.Msg
		if ve.Hint != "" {
			s += " (hint: " + ve.Hint + ")"
		}
		return s
	}
	return "go error: " + err.Error()
}

// Check judges an outcome against the case. It returns whether it passed
// and a description of what happened.
func Check(c *Case, v value.Value, err error) (bool, string) {
	got := Describe(v, err)
	switch {
	case c.Value != nil:
		return err == nil && strings.TrimPrefix(got, "value ") == *c.Value, got
	case c.ParseError:
		var pe *syntax.Error
		if !errors.As(err, &pe) {
			return false, got
		}
		return contains(c.ParseContains, pe.Msg, pe.Hint), got
	default:
		var pe *syntax.Error
		if c.Error == "parse_error" && errors.As(err, &pe) {
			return contains(c.ErrorContains, pe.Msg, pe.Hint), got
		}
		var ve *value.Error
		if !errors.As(err, &ve) || ve.Code != c.Error {
			return false, got
		}
		return contains(c.ErrorContains, ve.Msg, ve.Hint), got
	}
}

// contains reports whether want is empty or occurs in any of texts.
func contains(want string, texts ...string) bool {
	if want == "" {
		return true
	}
	for _, t := range texts {
		if strings.Contains(t, want) {
			return true
		}
	}
	return false
}
