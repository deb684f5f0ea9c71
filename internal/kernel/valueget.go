package kernel

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

func badPath(format string, args ...any) error {
	return proto.NewError(proto.CodeBadPathOrSlice, fmt.Sprintf(format, args...), nil)
}

func handleValueGet(_ context.Context, c *call) (any, error) {
	var p proto.ValueGetParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if !p.HasRef() {
		return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "ref" is required`, nil)
	}
	if err := checkElide(p.Elide); err != nil {
		return nil, err
	}
	ref := p.Ref
	n, isRef := parseRef(ref)
	var v value.Value
	var ok bool
	if isRef {
		v, ok = c.att.sess.lookup(n)
	}
	if !ok && isRef {
		// Not held by the live session (from before a restart, or
		// dropped from its transcript): the journal's copy, if any.
		var answer json.RawMessage
		if v, answer, ok = c.conn.srv.journalRef(c.att.sess, n); ok && v == nil {
			if p.Path != "" || p.SliceGiven() || (p.Format != "" && p.Format != "json") {
				return nil, onlyElided(ref)
			}
			return &proto.ValueJSON{Ref: ref, Value: answer}, nil
		}
	}
	if !ok {
		return nil, proto.NewError(proto.CodeUnknownRef, "unknown ref "+quoteRef(ref), nil)
	}
	steps, err := parsePath(p.Path)
	if err != nil {
		return nil, badPath("bad path: %v", err)
	}
	if v, err = project(v, steps); err != nil {
		return nil, badPath("bad path: %v", err)
	}
	var lo, hi int
	hasSlice := p.SliceGiven()
	if hasSlice {
		if p.BadSlice() {
			return nil, badPath("slice must be [start, end]")
		}
		for _, n := range p.Slice {
			if err := checkSafeInt("slice bounds", n); err != nil {
				return nil, err
			}
		}
		lo, hi = clampInt(p.Slice[0]), clampInt(p.Slice[1])
	}
	switch p.Format {
	case "raw":
		return rawValue(ref, v, hasSlice, lo, hi)
	case "", "json", "render":
	default:
		return nil, badPath("unknown format %q (want json, render or raw)", p.Format)
	}
	if hasSlice {
		if v, err = sliceValue(v, lo, hi); err != nil {
			return nil, err
		}
	}
	if p.Format == "render" {
		return &proto.ValueRender{Ref: ref, Render: render(v)}, nil
	}
	wire, err := elide(v, n, elideLimits(p.Elide))
	if err != nil {
		return nil, err
	}
	return &proto.ValueJSON{Ref: ref, Value: wire}, nil
}

// quoteRef quotes a client-supplied ref for a message, bounded.
func quoteRef(ref string) string {
	return fmt.Sprintf("%q", truncateUTF8(ref, 64))
}

// clampInt narrows a slice bound to a non-negative int.
func clampInt(n int64) int {
	const maxInt = int64(^uint(0) >> 1)
	switch {
	case n < 0:
		return 0
	case n > maxInt:
		return int(maxInt)
	}
	return int(n)
}

// sliceValue applies a half-open top-level slice to lists, table rows,
// strings (by character) and bytes.
func sliceValue(v value.Value, lo, hi int) (value.Value, error) {
	switch x := v.(type) {
	case *value.List:
		lo, hi = clampRange(lo, hi, len(x.Items))
		return value.NewList(x.Items[lo:hi]), nil
	case *value.Table:
		lo, hi = clampRange(lo, hi, x.N)
		return sliceTable(x, lo, hi), nil
	case value.Str:
		a, b := runeRange(string(x), lo, hi)
		return x[a:b], nil
	case value.Bytes:
		lo, hi = clampRange(lo, hi, len(x))
		return x[lo:hi], nil
	}
	return nil, badPath("a %s value cannot be sliced", value.TypeName(v))
}

// runeRange returns the byte offsets of characters [lo, hi) of s, clamped.
func runeRange(s string, lo, hi int) (int, int) {
	if hi < lo {
		hi = lo
	}
	a, b, k := len(s), len(s), 0
	for i := range s {
		if k == lo {
			a = i
		}
		if k == hi {
			b = i
			break
		}
		k++
	}
	if a > b {
		a = b
	}
	return a, b
}

// rawValue answers format "raw": the text of a string or the base64 of
// bytes, sliced, and never more than MaxRawBytes of content.
func rawValue(ref string, v value.Value, hasSlice bool, lo, hi int) (any, error) {
	switch x := v.(type) {
	case value.Str:
		s := string(x)
		total := utf8.RuneCountInString(s)
		if hasSlice {
			a, b := runeRange(s, lo, hi)
			s = s[a:b]
		}
		out := s
		if len(out) > MaxRawBytes {
			cut := MaxRawBytes
			for cut > 0 && !utf8.RuneStart(out[cut]) {
				cut--
			}
			out = out[:cut]
		}
		return &proto.ValueRaw{Ref: ref, Raw: &out, Total: total, Truncated: len(out) < len(s)}, nil
	case value.Bytes:
		b := string(x)
		total := len(b)
		if hasSlice {
			lo, hi = clampRange(lo, hi, len(b))
			b = b[lo:hi]
		}
		out := b[:min(len(b), MaxRawBytes)]
		enc := base64.StdEncoding.EncodeToString([]byte(out))
		return &proto.ValueRaw{Ref: ref, RawBase64: &enc, Total: total, Truncated: len(out) < len(b)}, nil
	}
	return nil, badPath("format raw needs a str or bytes value, not %s", value.TypeName(v))
}
