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

// execFlat are the members FlatParams is tried with: exec's.
func execFlat() []FlatParam {
	return []FlatParam{{Name: "src"}, {Name: "mode"}, {Name: "position"}, {Name: "timeout_ms", Int: true}}
}

// checkFlatParams compares FlatParams with encoding/json on params: when
// it reads, the object has no other members and each is what
// encoding/json decodes.
func checkFlatParams(t *testing.T, params []byte) {
	if !json.Valid(params) {
		return
	}
	m := execFlat()
	if !FlatParams(params, m) {
		return
	}
	var all map[string]json.RawMessage
	err := json.Unmarshal(params, &all)
	set := 0
	for _, f := range m {
		if f.Set {
			set++
			if all[f.Name] == nil {
				t.Fatalf("params %q: FlatParams read %s, encoding/json has no such member", params, f.Name)
			}
		}
	}
	if err != nil || len(all) != set {
		t.Fatalf("params %q: FlatParams read %+v but members are %v (err %v)", params, m, all, err)
	}
	var p struct {
		Src       *string `json:"src"`
		Mode      *string `json:"mode"`
		Position  *string `json:"position"`
		TimeoutMS *int64  `json:"timeout_ms"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatalf("params %q: FlatParams read %+v, encoding/json fails: %v", params, m, err)
	}
	for k, s := range []*string{p.Src, p.Mode, p.Position} {
		if (s != nil) != m[k].Set || (s != nil && *s != m[k].Str) {
			t.Fatalf("params %q: FlatParams read %+v, encoding/json %s = %v", params, m[k], m[k].Name, s)
		}
	}
	if (p.TimeoutMS != nil) != m[3].Set || (p.TimeoutMS != nil && *p.TimeoutMS != m[3].N) {
		t.Fatalf("params %q: FlatParams read %+v, encoding/json timeout_ms = %v", params, m[3], p.TimeoutMS)
	}
}

var flatParamSeeds = []string{`{"src":"1 + 1","timeout_ms":250}`, `{"timeout_ms":250,"src":"x"}`, ` { "src" : "a\nb" , "timeout_ms" : 7 } `,
	`{"src":"[3, 1, 2].sort()","mode":"run","position":"value","timeout_ms":250}`,
	`{"src":"a","timeout_ms":0}`, `{"src":"a","timeout_ms":1e3}`, `{"src":"a","timeout_ms":2.5}`, `{"src":"a","timeout_ms":-1}`,
	`{"src":"a","timeout_ms":0250}`, `{"src":"a","timeout_ms":1234567890123456}`, `{"src":"a","timeout_ms":null}`,
	`{"src":"a","timeout_ms":250,"timeout_ms":3}`, `{"src":"a","TIMEOUT_MS":3}`, `{"src":"a","timeout_ms":"3"}`, `{"mode":1}`}

func TestFlatParams(t *testing.T) {
	for _, seed := range append(append([]string(nil), paramSeeds...), flatParamSeeds...) {
		checkFlatParams(t, []byte(seed))
	}
	for _, read := range []struct {
		params, src, mode, position string
		n                           int64
		hasInt                      bool
	}{
		{`{"src":"1 + 1","timeout_ms":250}`, "1 + 1", "", "", 250, true},
		{` { "timeout_ms" : 86400000 , "src" : "a\nb" } `, "a\nb", "", "", 86400000, true},
		{`{"src":"x","mode":"run","position":"value","timeout_ms":250}`, "x", "run", "value", 250, true},
		{`{"src":"x"}`, "x", "", "", 0, false},
		{`{"position":"stmt"}`, "", "", "stmt", 0, false},
		{`{}`, "", "", "", 0, false},
		{`{"src":"x","timeout_ms":0}`, "x", "", "", 0, true},
		{`{"src":"x","timeout_ms":999999999999999}`, "x", "", "", 999999999999999, true},
	} {
		m := execFlat()
		if !FlatParams([]byte(read.params), m) || m[0].Str != read.src || m[1].Str != read.mode || m[2].Str != read.position ||
			m[3].N != read.n || m[3].Set != read.hasInt {
			t.Errorf("%s: got %+v, want it read", read.params, m)
		}
	}
	for _, leave := range []string{`{"src":"a","timeout_ms":1e3}`, `{"src":"a","timeout_ms":2.5}`, `{"src":"a","timeout_ms":-1}`,
		`{"src":"a","timeout_ms":1234567890123456}`, `{"src":"a","timeout_ms":null}`, `{"src":"a","timeout_ms":"3"}`,
		`{"src":"a","timeout_ms":250,"timeout_ms":3}`, `{"src":"a","src":"b"}`, `{"src":"a","TIMEOUT_MS":3}`,
		`{"\u0073rc":"a"}`, `{"src":"a","async":true}`, `{"src":null}`, `{"mode":1}`, `[1]`, `{"src":"a","timeout_ms":`, `{"src":"a"`} {
		if FlatParams([]byte(leave), execFlat()) {
			t.Errorf("%s: read, want it left to encoding/json", leave)
		}
	}
}

func FuzzFlatParams(f *testing.F) {
	for _, s := range append(append([]string(nil), paramSeeds...), flatParamSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) { checkFlatParams(t, params) })
}
