package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// compactHTMLReference is appendCompactHTML's definition: json.Compact,
// then json.HTMLEscape, after prefix; ok false when json.Compact fails.
func compactHTMLReference(prefix, raw []byte) ([]byte, bool) {
	var c bytes.Buffer
	if json.Compact(&c, raw) != nil {
		return nil, false
	}
	out := bytes.NewBuffer(bytes.Clone(prefix))
	json.HTMLEscape(out, c.Bytes())
	return out.Bytes(), true
}

func checkCompactHTML(t *testing.T, raw []byte) {
	t.Helper()
	prefix := []byte(`{"a":`)
	want, wok := compactHTMLReference(prefix, raw)
	got, ok := appendCompactHTML(bytes.Clone(prefix), raw)
	if ok != wok || ok && !bytes.Equal(got, want) {
		t.Fatalf("appendCompactHTML(%.80q) = %.80q, %v; want %.80q, %v", raw, got, ok, want, wok)
	}
}

// TestAppendCompactHTMLMatches: compact values taken as they are, others
// compacted and escaped, invalid and too deep ones refused, all as
// json.Compact and json.HTMLEscape have them.
func TestAppendCompactHTMLMatches(t *testing.T) {
	for _, s := range []string{
		`{"ref":"val:blake3:ab","type":"list","value":[1,2,3],"elided":false}`,
		`{"a": 1}`, `[1, 2]`, "{\"a\":\t1}", "{\"a\":1}\n", "\r\n[]", `{"s":"a b\tc"}`,
		`{"s":"q\" x"}`, `{"s":"b\\"}`, `{"s":"b\\", "t":1}`, `{"s":"\\\" "}`,
		`"<b>&amp;</b>"`, "\"\u2028\u2029\"", "\"\xe2\x80\"", `{"<":">"}`,
		`"plain"`, `12`, `-0.5e+3`, `true`, `null`, `{}`, `[]`, `[[],{}]`,
		``, ` `, `{`, `{"a":}`, `[1,]`, `01`, `"a`, `{"a":1} {}`, `tru`, "\"\x01\"",
		"\"\xff\xfe\"", `{"a":"\ud800"}`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	} {
		checkCompactHTML(t, []byte(s))
	}
}

func FuzzAppendCompactHTML(f *testing.F) {
	for _, s := range []string{`{"a": "b c"}`, `[1,2,"<"]`, `"\\\" "`, "{\"\u2028\":1}", `{"a":1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkCompactHTML(t, raw)
	})
}
