package pty

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEncode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		app  bool
		want string
	}{
		{`"ls -l"`, false, "ls -l"},
		{`{"text":"héllo"}`, false, "héllo"},
		{`{"key":"Enter"}`, false, "\r"},
		{`{"key":"escape"}`, false, "\x1b"},
		{`{"key":"Tab"}`, false, "\t"},
		{`{"key":"Backspace"}`, false, "\x7f"},
		{`{"key":"Up"}`, false, "\x1b[A"},
		{`{"key":"Up"}`, true, "\x1bOA"},
		{`{"key":"Left"}`, false, "\x1b[D"},
		{`{"key":"Home"}`, false, "\x1b[H"},
		{`{"key":"End"}`, true, "\x1bOF"},
		{`{"key":"PageUp"}`, false, "\x1b[5~"},
		{`{"key":"PageDown"}`, false, "\x1b[6~"},
		{`{"key":"F1"}`, false, "\x1bOP"},
		{`{"key":"F5"}`, false, "\x1b[15~"},
		{`{"key":"F12"}`, false, "\x1b[24~"},
		{`{"key":"Ctrl-C"}`, false, "\x03"},
		{`{"key":"ctrl+d"}`, false, "\x04"},
		{`{"key":"C-z"}`, false, "\x1a"},
		{`{"key":"^A"}`, false, "\x01"},
		{`{"key":"Ctrl-["}`, false, "\x1b"},
		{`{"key":"Ctrl-Space"}`, false, "\x00"},
		{`{"bytes":"AAEC/w=="}`, false, "\x00\x01\x02\xff"},
		{`["i", "hello", {"key":"Escape"}, ":wq", {"key":"Enter"}]`, false, "ihello\x1b:wq\r"},
		{`[]`, false, ""},
	} {
		got, err := Encode(json.RawMessage(tc.in), tc.app)
		if err != nil || string(got) != tc.want {
			t.Errorf("Encode(%s, app=%v) = %q, %v; want %q", tc.in, tc.app, got, err, tc.want)
		}
	}
}

func TestEncodeRefuses(t *testing.T) {
	for _, in := range []string{
		``, `42`, `null`, `true`, `{}`, `{"key":"Hyper-X"}`, `{"key":"Ctrl-1"}`, `{"text":"a","key":"Enter"}`,
		`{"colour":"red"}`, `{"bytes":"not base64!"}`, `{"text":5}`, `[["nested"]]`, `["ok", 7]`, `[`, `"unterminated`,
		`"` + strings.Repeat("x", MaxInputBytes+1) + `"`,
		`[` + strings.Repeat(`"a",`, MaxInputItems) + `"a"]`,
	} {
		got, err := Encode(json.RawMessage(in), false)
		var ie *InputError
		if !errors.As(err, &ie) || got != nil {
			t.Errorf("Encode(%.40s) = %q, %v; want an *InputError", in, got, err)
		}
	}
}

// FuzzEncode: no input panics; accepted input is bounded, and an accepted
// plain string encodes to itself.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{`"a"`, `{"key":"Enter"}`, `["x",{"bytes":"AA=="},{"key":"Ctrl-C"}]`, `[[]]`, `{"key":"^"}`} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, in string, app bool) {
		got, err := Encode(json.RawMessage(in), app)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}
			return
		}
		if len(got) > MaxInputBytes {
			t.Fatalf("%d bytes", len(got))
		}
		var s string
		if json.Unmarshal([]byte(in), &s) == nil && string(got) != s {
			t.Fatalf("string %q encoded as %q", s, got)
		}
	})
}

func TestKeyNames(t *testing.T) {
	for _, n := range []string{"Enter", "Escape", "Tab", "Backspace", "Up", "Down", "Left", "Right", "Home", "End",
		"PageUp", "PageDown", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12", "Delete", "Space"} {
		if _, ok := Key(n, false); !ok {
			t.Errorf("key %s unknown", n)
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		seq, ok := Key("Ctrl-"+string(c), false)
		if !ok || len(seq) != 1 || seq[0] != byte(c-'A'+1) {
			t.Errorf("Ctrl-%c = %q", c, seq)
		}
	}
}

// FuzzClamp: the clamp keeps every ASCII byte, keeps valid UTF-8 valid
// and never lets more than MaxClusterRunes extenders through in a row,
// however the input is split.
func FuzzClamp(f *testing.F) {
	f.Add([]byte("e\u0301\u0301 x"), 1)
	f.Add([]byte("👨‍👩‍👧"), 3)
	f.Fuzz(func(t *testing.T, in []byte, split int) {
		var c clusterClamp
		var out []byte
		if split <= 0 || split > len(in) {
			split = len(in)
		}
		out = append(out, c.filter(append([]byte(nil), in[:split]...))...)
		out = append(out, c.filter(append([]byte(nil), in[split:]...))...)
		if utf8.Valid(in) && !utf8.Valid(out) {
			t.Fatalf("valid %q became %q", in, out)
		}
		ascii := func(b []byte) (n int) {
			for _, x := range b {
				if x < utf8.RuneSelf {
					n++
				}
			}
			return n
		}
		if utf8.Valid(in) && ascii(in) != ascii(out) {
			t.Fatalf("ASCII lost: %q -> %q", in, out)
		}
		run := 0
		for _, r := range string(out) {
			if extender(r) {
				run++
				if run > MaxClusterRunes {
					t.Fatalf("%d extenders in a row in %q", run, out)
				}
			} else {
				run = 0
			}
		}
	})
}
