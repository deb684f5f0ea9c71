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

// checkSoleStringParam compares SoleStringParam with encoding/json on
// params: when it reads, the object has no member but src and src is the
// string encoding/json decodes.
func checkSoleStringParam(t *testing.T, params []byte) {
	if !json.Valid(params) {
		return
	}
	s, ok := SoleStringParam(params, "src")
	if !ok {
		return
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(params, &all); err != nil || len(all) != 1 || all["src"] == nil {
		t.Fatalf("params %q: SoleStringParam read %q but members are %v (err %v)", params, s, all, err)
	}
	var p struct {
		Src *string `json:"src"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Src == nil || *p.Src != s {
		t.Fatalf("params %q: SoleStringParam read %q, encoding/json %v (err %v)", params, s, p.Src, err)
	}
}

func TestSoleStringParam(t *testing.T) {
	for _, seed := range paramSeeds {
		checkSoleStringParam(t, []byte(seed))
	}
	for _, read := range []string{`{"src":"1 + 1"}`, ` { "src" : "a\nb" } `, `{"src":"a","src":"b"}`, `{"src":""}`} {
		if _, ok := SoleStringParam([]byte(read), "src"); !ok {
			t.Errorf("%s: left to encoding/json, want it read", read)
		}
	}
	for _, leave := range []string{`{"x":1,"src":"a"}`, `{"src":"a","async":true}`, `{"SRC":"a"}`, `{"\u0073rc":"a"}`,
		`{"src":null}`, `{"src":1}`, `{}`, `[1]`} {
		if _, ok := SoleStringParam([]byte(leave), "src"); ok {
			t.Errorf("%s: read, want it left to encoding/json", leave)
		}
	}
}

func FuzzSoleStringParam(f *testing.F) {
	for _, s := range paramSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) { checkSoleStringParam(t, params) })
}
