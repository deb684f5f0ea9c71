package proto

import (
	"encoding/json"
	"testing"
)

// TestResultFrame checks that a frame built in place is what EncodeFrame
// writes for the same response, for ids of every JSON type.
func TestResultFrame(t *testing.T) {
	result := `{"ast_version":2,"ast":{"stmts":[]},"s":"<&>"}`
	for _, id := range []string{"", "1", `"a b"`, "null", `{"k": [1, 2.50]}`, " 7 ", `[ "x" ]`} {
		var raw json.RawMessage
		if id != "" {
			raw = json.RawMessage(id)
		}
		want, err := EncodeFrame(NewResponse(raw, json.RawMessage(result)))
		if err != nil {
			t.Fatal(err)
		}
		got := AppendResultTail(append(AppendResultHead(nil, raw), result...))
		if string(got) != string(want) {
			t.Errorf("id %q:\n got %s\nwant %s", id, got, want)
		}
	}
}
