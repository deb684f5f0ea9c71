package kernel

import (
	"strconv"

	"github.com/shoalgo/shoal/internal/eval"
)

// appendUndoJSON appends rec as encoding/json renders it (json.Marshal,
// byte for byte: journalundo_test.go holds it to that), without
// reflection. Every run that spawns a program has a record
// ({"steps":[],"lost":"a program ran"}), so json.Marshal of it was a
// visible share of an owner spawn's request CPU. rec's steps are bounded
// by eval.MaxUndoSteps.
func appendUndoJSON(b []byte, rec eval.UndoRecord) ([]byte, error) {
	var err error
	b = append(b, `{"steps":`...)
	if rec.Steps == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range rec.Steps {
			s := &rec.Steps[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"op":`...)
			if b, err = appendJSONString(b, s.Op); err != nil {
				return nil, err
			}
			b = append(b, `,"path":`...)
			if b, err = appendJSONString(b, s.Path); err != nil {
				return nil, err
			}
			if s.From != "" {
				b = append(b, `,"from":`...)
				if b, err = appendJSONString(b, s.From); err != nil {
					return nil, err
				}
			}
			if s.Dir {
				b = append(b, `,"dir":true`...)
			}
			b = append(b, `,"size":`...)
			b = strconv.AppendInt(b, s.Size, 10)
			if s.ModNS != 0 {
				b = append(b, `,"mtime_ns":`...)
				b = strconv.AppendInt(b, s.ModNS, 10)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if rec.Lost != "" {
		b = append(b, `,"lost":`...)
		if b, err = appendJSONString(b, rec.Lost); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}
