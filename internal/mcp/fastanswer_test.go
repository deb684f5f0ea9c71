package mcp

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// oddText holds what an encoder could write otherwise: HTML characters,
// the JavaScript line separators, control characters, quotes and
// backslashes, invalid UTF-8, non-ASCII.
const oddText = "a<b>&c\u2028d\u2029e\x00\x01\x1f\b\f\n\r\t\"\\\xff\xc3é€😀\x7f/"

// TestFastAnswerFrameMatches: fastAnswerFrame writes the generic
// encoder's bytes for every result of the facade's shape, with integer
// and string ids, and declines every result of another shape (which the
// generic encoder then writes).
func TestFastAnswerFrameMatches(t *testing.T) {
	size := int64(3)
	ids := []any{float64(0), float64(-7), float64(int64(1) << 62), "", "s<&>é\u2028\"\\\x01", "\xff"}
	taken := []*sdk.CallToolResult{
		{Content: []sdk.Content{}},
		{Content: []sdk.Content{&sdk.TextContent{}}},
		{Content: []sdk.Content{&sdk.TextContent{Text: "42"}}, StructuredContent: json.RawMessage(`{"ref":"out:1","value":42}`)},
		{Content: []sdk.Content{&sdk.TextContent{Text: oddText}}, StructuredContent: json.RawMessage(" {\n \"a\" : [ 1 , \"<\u2028&>\\u003c\" , null , true ] ,\t\"b\":{}} ")},
		{Content: []sdk.Content{&sdk.TextContent{Text: "x"}, &sdk.ResourceLink{URI: "shoal://out/1", Name: "out:1", MIMEType: "application/json"}}, StructuredContent: json.RawMessage(`{"uri":"shoal://out/1"}`)},
		{Content: []sdk.Content{&sdk.ResourceLink{}, &sdk.ResourceLink{URI: oddText}, &sdk.ResourceLink{Name: oddText}, &sdk.ResourceLink{MIMEType: oddText}}},
		{Content: []sdk.Content{&sdk.TextContent{Text: "boom"}}, StructuredContent: json.RawMessage(`{"code":-32001,"error":"raised"}`), IsError: true},
		{Content: []sdk.Content{&sdk.TextContent{Text: "e"}}, IsError: true},
		{Content: []sdk.Content{}, StructuredContent: json.RawMessage(`"<&>"`)},
		{Content: []sdk.Content{}, StructuredContent: json.RawMessage(`  12.5e3  `)},
		{Content: []sdk.Content{}, StructuredContent: json.RawMessage(`[]`)},
	}
	declined := []*sdk.CallToolResult{
		nil,
		{},
		{Meta: sdk.Meta{}, Content: []sdk.Content{}},
		{Content: []sdk.Content{&sdk.TextContent{Text: "x", Meta: sdk.Meta{"k": 1}}}},
		{Content: []sdk.Content{&sdk.TextContent{Text: "x", Annotations: &sdk.Annotations{Priority: 1}}}},
		{Content: []sdk.Content{&sdk.ResourceLink{URI: "u", Title: "t"}}},
		{Content: []sdk.Content{&sdk.ResourceLink{URI: "u", Description: "d"}}},
		{Content: []sdk.Content{&sdk.ResourceLink{URI: "u", Size: &size}}},
		{Content: []sdk.Content{&sdk.ResourceLink{URI: "u", Icons: []sdk.Icon{}}}},
		{Content: []sdk.Content{&sdk.ImageContent{Data: []byte("x"), MIMEType: "image/png"}}},
		{Content: []sdk.Content{nil}},
		{Content: []sdk.Content{(*sdk.TextContent)(nil)}},
		{Content: []sdk.Content{}, StructuredContent: map[string]any{"a": 1}},
		{Content: []sdk.Content{}, StructuredContent: json.RawMessage(nil)},
		{Content: []sdk.Content{}, StructuredContent: json.RawMessage(``)},
		{Content: []sdk.Content{}, StructuredContent: json.RawMessage(`{"a":`)},
		{Content: []sdk.Content{}, RequestState: "s"},
		{Content: []sdk.Content{}, InputRequests: sdk.InputRequestMap{}},
	}
	if resultTypeField < 0 {
		t.Fatal("CallToolResult has no resultType field: the fast answer is never taken")
	}
	for _, raw := range ids {
		id, err := jsonrpc.MakeID(raw)
		if err != nil {
			t.Fatal(err)
		}
		for i, res := range taken {
			want, err := genericAnswerFrame(id, res, nil)
			if err != nil {
				t.Fatalf("result %d: the generic encoder failed: %v", i, err)
			}
			got, ok := fastAnswerFrame(id, res)
			if !ok {
				t.Errorf("id %q, result %d: declined", raw, i)
				continue
			}
			if string(got) != string(want) {
				t.Errorf("id %q, result %d:\nfast    %s\ngeneric %s", raw, i, got, want)
			}
			if full, _ := answerFrame(id, res, nil); string(full) != string(want) {
				t.Errorf("id %q, result %d: answerFrame %s", raw, i, full)
			}
		}
		for i, res := range declined {
			if got, ok := fastAnswerFrame(id, res); ok {
				t.Errorf("id %q, declined result %d taken: %s", raw, i, got)
			}
		}
	}
	// An error is the generic encoder's, as before.
	id, _ := jsonrpc.MakeID(float64(3))
	wire := &jsonrpc.Error{Code: -32602, Message: "bad <params>"}
	got, err := answerFrame(id, nil, wire)
	want, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: wire})
	if err != nil || string(got) != string(want) {
		t.Errorf("an error: %s, %v; want %s", got, err, want)
	}
	// A malformed structured content fails as the generic encoder fails.
	if _, err := answerFrame(id, &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: json.RawMessage(`{`)}, nil); err == nil {
		t.Error("a malformed structured content was encoded")
	}
}

// FuzzFastAnswerFrame: for any text, names, structured content and id,
// fastAnswerFrame either declines or writes the generic encoder's bytes,
// and it declines whenever the generic encoder fails.
func FuzzFastAnswerFrame(f *testing.F) {
	f.Add("42", "shoal://out/1", "out:1", `{"ref":"out:1","value":42}`, "s", int64(1), false, true)
	f.Add(oddText, oddText, "", " [1, \"<\u2028>\"] ", oddText, int64(-1), true, false)
	f.Add("", "", "", `{"a":`, "", int64(0), false, false)
	f.Fuzz(func(t *testing.T, text, uri, name, structured, sid string, nid int64, isError, stringID bool) {
		var raw any = float64(nid)
		if stringID {
			raw = sid
		}
		id, err := jsonrpc.MakeID(raw)
		if err != nil {
			t.Skip()
		}
		res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: isError}
		if uri != "" || name != "" {
			res.Content = append(res.Content, &sdk.ResourceLink{URI: uri, Name: name, MIMEType: "application/json"})
		}
		if structured != "" {
			res.StructuredContent = json.RawMessage(structured)
		}
		want, werr := genericAnswerFrame(id, res, nil)
		got, ok := fastAnswerFrame(id, res)
		switch {
		case werr != nil && ok:
			t.Fatalf("the generic encoder failed (%v), the fast one wrote %s", werr, got)
		case werr == nil && !ok:
			t.Fatalf("declined %q", structured)
		case ok && string(got) != string(want):
			t.Fatalf("fast    %s\ngeneric %s", got, want)
		}
	})
}

// TestAppendJSONString: appendJSONString is encoding/json's string
// encoding, with and without HTML escaping.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", oddText, "\xed\xa0\x80", "\xf4\x90\x80\x80", "a\xc3"} {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s, true); string(got) != string(want) {
			t.Errorf("%q: %s, want %s", s, got, want)
		}
		var b jsonBuf
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if got := appendJSONString(nil, s, false); string(got)+"\n" != string(b) {
			t.Errorf("%q unescaped: %s, want %s", s, got, b)
		}
	}
}

type jsonBuf []byte

func (b *jsonBuf) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }
