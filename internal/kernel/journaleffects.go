package kernel

import (
	"encoding/json"

	"github.com/shoalgo/shoal/internal/leash"
)

// appendEffectsJSON appends effs as encoding/json renders them
// (json.Marshal of the slice, field for field and byte for byte: the
// differential tests in journaleffects_test.go hold it to that), without
// reflection: the journal row of every run with effects carries them, and
// encoding/json was a visible share of an owner spawn's request CPU.
func appendEffectsJSON(b []byte, effs []leash.Effect) ([]byte, error) {
	b = append(b, '[')
	for i := range effs {
		e := &effs[i]
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		b = append(b, `{"kind":`...)
		if b, err = appendJSONString(b, string(e.Kind)); err != nil {
			return nil, err
		}
		for _, f := range [...]struct{ key, v string }{{`,"path":`, e.Path}, {`,"program":`, e.Program}} {
			if f.v != "" {
				b = append(b, f.key...)
				if b, err = appendJSONString(b, f.v); err != nil {
					return nil, err
				}
			}
		}
		if len(e.Argv) > 0 {
			b = append(b, `,"argv":[`...)
			for j, a := range e.Argv {
				if j > 0 {
					b = append(b, ',')
				}
				if b, err = appendJSONString(b, a); err != nil {
					return nil, err
				}
			}
			b = append(b, ']')
		}
		if e.Name != "" {
			b = append(b, `,"name":`...)
			if b, err = appendJSONString(b, e.Name); err != nil {
				return nil, err
			}
		}
		if e.Dynamic {
			b = append(b, `,"dynamic":true`...)
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// appendJSONString appends s as encoding/json encodes a string: a plain
// one (printable ASCII with nothing it escapes, the paths and programs of
// nearly every effect) as it is, any other through encoding/json itself.
func appendJSONString(b []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			q, err := json.Marshal(s)
			if err != nil {
				return nil, err
			}
			return append(b, q...), nil
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}
