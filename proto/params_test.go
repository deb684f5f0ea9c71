package proto

import (
	"encoding/json"
	"testing"
)

// paramSeeds are params objects for StringParam, some of which it reads
// and some of which it leaves to encoding/json.
var paramSeeds = []string{
	`{"src":"1 + 1"}`, `{"src":""}`, ` { "src" : "a\nb" } `, `{"src":"\"q\" \\ \/ \b\f\n\r\t"}`,
	`{"src":"\u00e9\u4e2d\ud83d\ude00"}`, `{"src":"\ud83d"}`, `{"src":"\ude00\ud83d x"}`, `{"src":"\ud83dx"}`,
	`{"src":"\ud83d\u0041"}`, "{\"src\":\"\xff\xfe ok \xc3\"}", `{"src":"é"}`, `{"x":1,"src":"a","y":[{"src":2}]}`,
	`{"src":"a","src":"b"}`, `{"SRC":"a"}`, `{"src":"a","Src":"b"}`, `{"\u0073rc":"a"}`, `{"ſrc":"a"}`,
	`{"src":null}`, `{"src":1}`, `{}`, `[1]`, `{"src":"\u0000"}`, `{"src":"a\\\\\"b\\"}`, `{"src":"\\"}`,
	`{"a":"\"src\"","src":"x\\\\","b":{"src":[1,"\\\""]}}`,
}

// checkStringParam compares StringParam with encoding/json on params.
func checkStringParam(t *testing.T, params []byte) {
	if !json.Valid(params) {
		return
	}
	s, ok := StringParam(params, "src")
	var p struct {
		Src *string `json:"src"`
	}
	err := json.Unmarshal(params, &p)
	if !ok {
		return
	}
	if err != nil || p.Src == nil || *p.Src != s {
		t.Fatalf("params %q: StringParam read %q, encoding/json %v (err %v)", params, s, p.Src, err)
	}
}

func TestStringParam(t *testing.T) {
	read := 0
	for _, seed := range paramSeeds {
		checkStringParam(t, []byte(seed))
		if _, ok := StringParam([]byte(seed), "src"); ok {
			read++
		}
	}
	for _, leave := range []string{`{"SRC":"a"}`, `{"src":"a","Src":"b"}`, `{"\u0073rc":"a"}`, `{"ſrc":"a"}`, `{"src":null}`, `{"src":1}`, `{}`, `[1]`} {
		if _, ok := StringParam([]byte(leave), "src"); ok {
			t.Errorf("%s: read, want it left to encoding/json", leave)
		}
	}
	if read < 10 {
		t.Errorf("only %d seeds read", read)
	}
}

func FuzzStringParam(f *testing.F) {
	for _, s := range paramSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) { checkStringParam(t, params) })
}
