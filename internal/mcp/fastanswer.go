package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/proto"
)

// The direct path's answer frame without reflection (issue 24, the
// eleventh round). answerFrame encoded each result by encoding/json:
// CallToolResult's MarshalJSON (json.Marshal of a wire struct), each
// content's MarshalJSON (json.Marshal again) and the structured content
// compacted twice, ~7% of the facade's CPU a shoal_exec. The results the
// facade's tools give are of one shape (facade.go's result, errors.go's
// tool errors): text content, perhaps a resource link, a structured
// content that is a json.RawMessage, perhaps isError, nothing else.
// fastAnswerFrame writes exactly those the way the generic encoder does,
// byte for byte (TestFastAnswerFrameMatches, FuzzFastAnswerFrame), and
// declines anything else, which answerFrame then encodes as before.

// resultTypeField is the index of CallToolResult's unexported resultType
// (written as "resultType" when set), or -1 when the SDK has none, in
// which case no result is taken (the field would go unseen).
var resultTypeField = func() int {
	f, ok := reflect.TypeFor[sdk.CallToolResult]().FieldByName("resultType")
	if !ok || len(f.Index) != 1 || f.Type.Kind() != reflect.String {
		return -1
	}
	return f.Index[0]
}()

// fastAnswerFrame is answerFrame's frame for res when res is of the
// shape above and id an integer or a string; ok is false otherwise.
func fastAnswerFrame(id jsonrpc.ID, res *sdk.CallToolResult) (frame []byte, ok bool) {
	if res == nil || res.Meta != nil || res.Content == nil || res.InputRequests != nil || res.RequestState != "" ||
		resultTypeField < 0 || reflect.ValueOf(res).Elem().Field(resultTypeField).String() != "" {
		return nil, false
	}
	var structured json.RawMessage
	if res.StructuredContent != nil {
		raw, isRaw := res.StructuredContent.(json.RawMessage)
		if !isRaw || raw == nil {
			return nil, false // encoded otherwise; a nil RawMessage is null
		}
		structured = raw
	}
	b := make([]byte, 0, 128+len(structured)+contentSize(res.Content))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	switch v := id.Raw().(type) {
	case int64:
		b = strconv.AppendInt(b, v, 10)
	case string:
		b = appendJSONString(b, v, false) // the SDK's encoder does not escape HTML
	default:
		return nil, false
	}
	b = append(b, `,"result":{"content":[`...)
	for i, c := range res.Content {
		if i > 0 {
			b = append(b, ',')
		}
		switch c := c.(type) {
		case *sdk.TextContent:
			if c == nil || c.Meta != nil || c.Annotations != nil {
				return nil, false
			}
			b = append(b, `{"type":"text","text":`...)
			b = appendJSONString(b, c.Text, true)
			b = append(b, '}')
		case *sdk.ResourceLink:
			if c == nil || c.Title != "" || c.Description != "" || c.Size != nil || c.Meta != nil || c.Annotations != nil || c.Icons != nil {
				return nil, false
			}
			b = append(b, `{"type":"resource_link"`...)
			b = appendMember(b, `,"mimeType":`, c.MIMEType)
			b = appendMember(b, `,"uri":`, c.URI)
			b = appendMember(b, `,"name":`, c.Name)
			b = append(b, '}')
		default:
			return nil, false
		}
	}
	b = append(b, ']')
	if structured != nil {
		b = append(b, `,"structuredContent":`...)
		var ok bool
		if b, ok = appendCompactHTML(b, structured); !ok {
			return nil, false // the generic encoder words the error
		}
	}
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, "}}"...), true
}

// contentSize is about what res's contents take encoded.
func contentSize(cs []sdk.Content) int {
	n := 0
	for _, c := range cs {
		if t, ok := c.(*sdk.TextContent); ok && t != nil {
			n += len(t.Text) + 32
		} else {
			n += 128
		}
	}
	return n
}

// appendMember appends the member key s, as a json "omitempty" string
// member: nothing when s is empty.
func appendMember(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendJSONString(append(b, key...), s, true)
}

// appendCompactHTML appends raw compacted with HTML escaping, as
// json.Marshal encodes a json.RawMessage (its compact with escapeHTML:
// '<', '>', '&', U+2028 and U+2029 in strings written as \u escapes); ok
// is false when raw is not valid JSON.
//
// Raw already compact (no whitespace outside its strings, as the kernel's
// answers and the facade's own members are) and without anything to
// escape is appended as it is, once proto.ScanFrame (held to json.Valid by
// proto's FuzzScanJSON) finds it valid and no deeper than encoding/json
// reads: json.Compact's scanner took ~1.8 µs for an exec's ~250-byte
// answer, twice a call (issue 24, the thirteenth round).
func appendCompactHTML(b []byte, raw []byte) ([]byte, bool) {
	if compactAlready(raw) && !needsHTMLEscape(raw) {
		if f := proto.ScanFrame(raw); f.Valid && f.Depth <= maxCompactDepth {
			return append(b, raw...), true
		}
	}
	buf := bytes.NewBuffer(b)
	start := buf.Len()
	if json.Compact(buf, raw) != nil {
		return nil, false
	}
	out := buf.Bytes()
	if !needsHTMLEscape(out[start:]) {
		return out, true
	}
	compacted := bytes.Clone(out[start:])
	buf.Truncate(start)
	json.HTMLEscape(buf, compacted)
	return buf.Bytes(), true
}

// maxCompactDepth is the deepest nesting encoding/json's scanner accepts
// (its maxNestingDepth); json.Compact refuses deeper values.
const maxCompactDepth = 10000

// compactAlready reports whether raw has no JSON whitespace outside its
// strings: valid, it is then what json.Compact writes for it.
func compactAlready(raw []byte) bool {
	in := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if in {
			switch c {
			case '\\':
				i++
			case '"':
				in = false
			}
			continue
		}
		switch c {
		case '"':
			in = true
		case ' ', '\t', '\n', '\r':
			return false
		}
	}
	return true
}

// needsHTMLEscape reports whether json.HTMLEscape would change b.
func needsHTMLEscape(b []byte) bool {
	for i, c := range b {
		switch {
		case c == '<' || c == '>' || c == '&':
			return true
		case c == 0xE2 && i+2 < len(b) && b[i+1] == 0x80 && b[i+2]&^1 == 0xA8:
			return true
		}
	}
	return false
}

// appendJSONString appends s as encoding/json encodes a string: invalid
// UTF-8 as U+FFFD, '"', '\\' and control characters escaped (\b, \f,
// \n, \r, \t by name), U+2028 and U+2029 as \u escapes, and, when
// escapeHTML (json.Marshal; not the SDK's Encoder), '<', '>' and '&'.
func appendJSONString(b []byte, s string, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
