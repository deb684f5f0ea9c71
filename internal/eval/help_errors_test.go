package eval

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/value"
)

// TestHelpErrorsListsCodes: `help errors` shows every code of value.Codes
// with its meaning, in lines that fit the terminal.
func TestHelpErrorsListsCodes(t *testing.T) {
	s := newSession(t)
	v, err := s.eval("help errors")
	if err != nil {
		t.Fatal(err)
	}
	text := string(v.(value.Str))
	if !strings.Contains(text, "try { rm missing.txt }") {
		t.Errorf("help errors lost its prose and example:\n%s", text)
	}
	flat := strings.Join(strings.Fields(text), " ")
	for _, c := range value.Codes() {
		if !strings.Contains(text, "\n  "+c.Name+" ") {
			t.Errorf("help errors does not list %s", c.Name)
		}
		if !strings.Contains(flat, strings.Join(strings.Fields(c.Meaning), " ")) {
			t.Errorf("help errors lacks the meaning of %s", c.Name)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if n := utf8.RuneCountInString(line); n > errorCodesWidth && strings.HasPrefix(line, "    ") {
			t.Errorf("a line of the code list is %d wide (> %d): %q", n, errorCodesWidth, line)
		}
	}
}

// TestHelpCodeAnswersEachCode: `help CODE` answers for every code of
// value.Codes with its meaning and what raises it, and a near miss gets
// the code as its did-you-mean.
func TestHelpCodeAnswersEachCode(t *testing.T) {
	s := newSession(t)
	for _, c := range value.Codes() {
		v, err := s.eval("help " + c.Name)
		if err != nil {
			t.Errorf("help %s: %v", c.Name, err)
			continue
		}
		flat := strings.Join(strings.Fields(string(v.(value.Str))), " ")
		if !strings.Contains(flat, "an error code") || !strings.Contains(flat, strings.Join(strings.Fields(c.Meaning), " ")) ||
			!strings.Contains(flat, strings.Join(strings.Fields(c.RaisedBy), " ")) {
			t.Errorf("help %s lacks its meaning or raisers:\n%s", c.Name, v)
		}
	}
	_, err := s.eval("help not_fuond")
	if ve, ok := err.(*value.Error); !ok || ve.Code != value.CodeNotFound || !strings.Contains(ve.Hint, "not_found") {
		t.Fatalf("help not_fuond: %v, want not_found with the hint naming not_found", err)
	}
}
