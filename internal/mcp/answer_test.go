package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// reflectAnswer is readAnswer's reflective path alone.
func reflectAnswer(raw json.RawMessage) (answerHead, string, json.RawMessage) {
	var h answerHead
	_ = json.Unmarshal(raw, &h)
	if h.Render != nil {
		raw = withoutMember(raw, "render")
	}
	uri := refURI(h.Ref)
	if uri != "" && h.URI == "" {
		raw = withMember(raw, "uri", uri)
	}
	return h, uri, raw
}

var answerSeeds = []string{
	`{"ref":"out:5","value":{"$":"list","v":[1,2,3]},"render":"[1, 2, 3]"}`,
	`{"ref":"out:5","value":[1,2,3],"render":"[1, 2, 3]","exit":0,"cwd":"/tmp/a b"}`,
	`{"ref":"val:blake3:abc","value":"<a&b>","render":"<a&b> \u2028"}`,
	`{"ref":"out:7","uri":"","value":null}`,
	`{"ref":"out:7","uri":"x"}`,
	`{"Ref":"out:7"}`,
	`{"REF":"out:7","ref":"out:8"}`,
	`{"ref":"out:7","ref":"out:9"}`,
	`{"ref":5,"render":"x"}`,
	`{"ref":"task:3","timed_out":true}`,
	`{"task":"task:3","events":"task.3"}`,
	`{"ref":"out:1","render":"a\"b\\c\n","value":{ "k" : [ 1 , 2 ] ,"l":"\u003c"}}`,
	`{"ref":"out:1","render":null}`,
	`{"r\u0065f":"out:1"}`,
	`{"ref":"out:1","\u00e9":1}`,
	`{"ref":"o\u0075t:2","render":"\ud800"}`,
	`[1,2]`, `"s"`, `null`, `{}`, `{"ref":"out:1"`,
}

// TestReadAnswerMatchesReflection: readAnswer gives what decoding the
// answer into answerHead and adding the uri with withMember give.
func TestReadAnswerMatchesReflection(t *testing.T) {
	for _, s := range answerSeeds {
		checkAnswer(t, []byte(s))
	}
}

func checkAnswer(t *testing.T, raw []byte) {
	t.Helper()
	h1, u1, r1 := readAnswer(json.RawMessage(raw))
	h2, u2, r2 := reflectAnswer(json.RawMessage(raw))
	if !reflect.DeepEqual(h1, h2) || u1 != u2 || string(r1) != string(r2) {
		t.Fatalf("readAnswer(%s) = %+v %q %s; reflection gives %+v %q %s", raw, h1, u1, r1, h2, u2, r2)
	}
}

func FuzzReadAnswer(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		checkAnswer(t, b)
	})
}
