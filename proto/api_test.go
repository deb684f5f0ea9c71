package proto

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// contractExample is a params or result example of KERNEL-CONTRACT.md or
// the seed protocol it refines (as the contract pins it where they
// differ), for one method's declared type.
type contractExample struct {
	method string
	result bool // the result's example, else the params'
	json   string
}

var contractExamples = []contractExample{
	{MethodSessionAttach, false, `{"session":"work","token":"optional bearer secret","client":{"kind":"native-agent","tty":false}}`},
	{MethodSessionAttach, true, `{"session":"work","principal":"agent:reviewer","caps":{"enforced":true,"tier":"A","available_tier":"A","policy_principal":"agent:reviewer","profile":"reviewer","token_caps":["fs.read","proc.spawn"],"opaque":"deny"},"cwd":{"display":"/home/me/project"},"env_hash":"0000000000000000000000000000000000000000000000000000000000000000","ast_version":2,"caps_enforced":true,"elide_defaults":{"max_bytes":8192,"max_rows":100,"max_items":500,"max_bytes_raw":4096,"hard_cap":65536},"channels":["session.transcript","journal","approval","render"]}`},
	{MethodSessionEnv, true, `{"granted":true,"names":["HOME","PATH"],"env":{"HOME":"/home/me","PATH":"/usr/bin"}}`},
	{MethodSessionReef, true, `{"active_scope":"/home/me/project","bindings":[{"tool":"jq","version":"1.7.1","provider":"system","scope":"/home/me/project","constrained":true}]}`},
	{MethodParse, false, `{"src":"let answer = 6 * 7"}`},
	{MethodParse, true, `{"ast_version":2,"ast":{"stmts":[]}}`},
	{MethodComplete, false, `{"src":"(ls .).whe","cursor":10}`},
	{MethodExplain, false, `{"src":"rm ./scratch.txt"}`},
	{MethodExplain, false, `{"ast":{"stmts":[]}}`},
	{MethodExec, false, `{"src":"(ls .).where(.type == 'file')","mode":"run","position":"stmt","async":false,"timeout_ms":5000,"elide":{"max_bytes":8192,"max_rows":100,"max_items":500},"plan_ref":null}`},
	{MethodExec, true, `{"ref":"out:12","value":{"$":"int","v":42},"render":"42"}`},
	{MethodExec, true, `{"task":"task:7","events":"task.7"}`},
	{MethodExec, true, `{"task":"task:7","events":"task.7","timed_out":true}`},
	{MethodExec, true, `{"plan_ref":"plan:7b2fd854cb805ba17b2fd854cb805ba1","effects":[{"kind":"fs_write","path":"/home/me/out"}],"reversibility":"conditional","verdict":"approval_required","approval_pending":true}`},
	{MethodValueGet, false, `{"ref":"out:12","path":".rows[0].name","slice":[0,10],"format":"json","elide":{"max_bytes":4096}}`},
	{MethodValueGet, true, `{"ref":"out:12","raw":"text","total":4,"truncated":false}`},
	{MethodValueGet, true, `{"ref":"out:12","raw_base64":"AAE=","total":2,"truncated":true}`},
	{MethodBlobGet, false, `{"hash":"8baef","offset":0,"length":10}`},
	{MethodBlobGet, true, `{"hash":"8baef","len":1234,"offset":0,"eof":false,"value":{"$":"bytes","v":"AAE="}}`},
	{MethodTaskGet, false, `{"task":"task:7"}`},
	{MethodTaskGet, true, `{"task":"task:7","session":"work","state":"completed","started_ns":1750000000000000000,"finished_ns":1750000000123000000,"result_ref":"out:12","error":null}`},
	{MethodTaskAwait, false, `{"task":"task:7","timeout_ms":5000}`},
	{MethodTaskAwait, true, `{"task":"task:7","session":"work","state":"running","started_ns":1750000000000000000,"finished_ns":null,"result_ref":null,"error":null,"timed_out":true}`},
	{MethodPlanGet, false, `{"plan_ref":"plan:7b2fd854cb805ba17b2fd854cb805ba1"}`},
	{MethodPlanApply, false, `{"plan_ref":"plan:7b2fd854cb805ba17b2fd854cb805ba1"}`},
	{MethodCapRequest, false, `{"plan_ref":"plan:7b2fd854cb805ba17b2fd854cb805ba1","effects":["fs.write",{"kind":"proc_spawn"}]}`},
	{MethodJournalQuery, false, `{"since":1750000000000000000,"until":1750000100000000000,"principal":"agent:reviewer","head":"git","ok":true,"effects":["fs.write"],"limit":100}`},
	{MethodJournalQuery, true, `[{"id":3,"session":"work","principal":"agent:reviewer","ts":1750000000000000000,"dur_ns":1200,"cwd":"/home/me","src":"ls","ast":{"stmts":[]},"effects":[{"kind":"fs_read","path":"/home/me"}],"status":0,"ok":true,"opaque":false,"verdict":"allow","outputs":[{"kind":"value","hash":"8baef","len":12}]}]`},
	{MethodPTYOpen, false, `{"cmd":"vim","args":["notes.md"],"cols":100,"rows":30,"env":{}}`},
	{MethodPTYSend, false, `{"pty_id":"pty:2","input":["i","hello",{"key":"Escape"}]}`},
	{MethodPTYSend, false, `{"pty_id":"pty:2","input":"hello"}`},
	{MethodPTYRead, false, `{"pty_id":"pty:2"}`},
	{MethodPTYRead, true, `{"pty_id":"pty:2","cmd":"vim","cols":100,"rows":30,"cursor":{"row":0,"col":0,"hidden":false},"screen":["hello"],"changed":true,"alive":true,"exit":null,"pid":42}`},
	{MethodPTYResize, false, `{"pty_id":"pty:2","cols":120,"rows":40}`},
	{MethodPTYClose, false, `{"pty_id":"pty:2"}`},
	{MethodPTYClose, true, `{"pty_id":"pty:2","exit":{"status":0,"signal":null}}`},
	{MethodEventsRead, false, `{"channel":"journal","since":81,"limit":100}`},
	{MethodEventsRead, true, `{"channel":"task.7","events":[{"channel":"task.7","seq":3,"ts":1750000000000000000,"payload":{"$":"str","v":"started"}}]}`},
	{MethodEventsPublish, false, `{"channel":"user.build","payload":{"phase":"done"}}`},
	{MethodEventsPublish, true, `{"channel":"user.build","seq":1,"ts":1750000000000000000}`},
	{MethodEventsSubscribe, false, `{"channel":"task.7","since":2}`},
	{MethodEventsSubscribe, true, `{"channel":"task.7","subscribed":true}`},
	{MethodEventsUnsubscribe, false, `{"channel":"task.7"}`},
	{MethodEventsUnsubscribe, true, `{"channel":"task.7","unsubscribed":true}`},
	{MethodTaskList, true, `{"tasks":[]}`},
	{MethodPlanList, true, `{"plans":[]}`},
	{MethodPTYList, true, `{"ptys":[]}`},
}

// TestContractExamplesRoundTrip: each example decodes into its method's
// declared type with no member the type does not know, and survives an
// encode and decode unchanged; re-encoded, it keeps every member the
// example has, with the same value, except a null or false the type omits
// (its own zero, which the kernel reads as absence).
func TestContractExamplesRoundTrip(t *testing.T) {
	for _, ex := range contractExamples {
		m, ok := LookupMethod(ex.method)
		if !ok {
			t.Fatalf("%s is not in the method table", ex.method)
		}
		typ := m.Params
		if ex.result {
			typ = m.Result
		}
		if typ == nil {
			t.Errorf("%s: no declared type for %s", ex.method, ex.json)
			continue
		}
		rt := reflect.TypeOf(typ).Elem()
		first := reflect.New(rt)
		dec := json.NewDecoder(strings.NewReader(ex.json))
		dec.DisallowUnknownFields()
		if err := dec.Decode(first.Interface()); err != nil {
			t.Errorf("%s: %s: %v", ex.method, ex.json, err)
			continue
		}
		enc, err := json.Marshal(first.Interface())
		if err != nil {
			t.Errorf("%s: encode: %v", ex.method, err)
			continue
		}
		second := reflect.New(rt)
		if err := json.Unmarshal(enc, second.Interface()); err != nil {
			t.Errorf("%s: decode %s: %v", ex.method, enc, err)
			continue
		}
		if !sameWire(t, first.Interface(), second.Interface()) {
			t.Errorf("%s: %s decoded differently from its encoding %s", ex.method, ex.json, enc)
		}
		var want, got any
		_ = json.Unmarshal([]byte(ex.json), &want)
		_ = json.Unmarshal(enc, &got)
		if msg := covers(got, want, ""); msg != "" {
			t.Errorf("%s: %s re-encoded as %s: %s", ex.method, ex.json, enc, msg)
		}
	}
}

// sameWire compares two decoded values by their encodings.
func sameWire(t *testing.T, a, b any) bool {
	ea, _ := json.Marshal(a)
	eb, _ := json.Marshal(b)
	return bytes.Equal(ea, eb)
}

// covers reports how got lacks or changes a member of want ("" when it
// does not): a null, false, 0 or empty member of want may be missing.
func covers(got, want any, at string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return at + ": not an object"
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				if wv == nil || wv == false || wv == float64(0) {
					continue
				}
				if m, ok := wv.(map[string]any); ok && len(m) == 0 {
					continue
				}
				return at + "." + k + ": missing"
			}
			if msg := covers(gv, wv, at+"."+k); msg != "" {
				return msg
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return at + ": not the same list"
		}
		for i := range w {
			if msg := covers(g[i], w[i], at+"[]"); msg != "" {
				return msg
			}
		}
		return ""
	}
	if !reflect.DeepEqual(got, want) {
		return at + ": changed"
	}
	return ""
}

// TestMethodTable: names are unique, the pre-attach set is the contract's
// (in the order kernel.info has always listed it), and every params and
// result type is a pointer to a type of this package.
func TestMethodTable(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Methods() {
		if seen[m.Name] {
			t.Errorf("%s listed twice", m.Name)
		}
		seen[m.Name] = true
		for _, typ := range []any{m.Params, m.Result} {
			if typ == nil {
				continue
			}
			rt := reflect.TypeOf(typ)
			if rt.Kind() != reflect.Pointer || reflect.ValueOf(typ).Elem().IsValid() {
				t.Errorf("%s: %v is not a nil pointer", m.Name, rt)
			}
		}
		if m.Result == nil {
			t.Errorf("%s has no result type", m.Name)
		}
	}
	if len(seen) != 32 {
		t.Errorf("%d methods", len(seen))
	}
	want := []string{MethodSessionAttach, MethodParse, MethodComplete, MethodKernelInfo}
	if !slices.Equal(PreAttachMethods(), want) {
		t.Errorf("pre-attach %v, want %v", PreAttachMethods(), want)
	}
}

// TestUnionsAreTheirShapes: ExecResult and ValueGetResult, the decoding
// views of answers of several shapes, have exactly the members of those
// shapes, so a member added to a shape cannot be missed by clients.
func TestUnionsAreTheirShapes(t *testing.T) {
	for _, tc := range []struct {
		union  any
		shapes []any
	}{
		{ExecResult{}, []any{ExecValue{}, TaskStarted{}, PlanAnswer{}}},
		{ValueGetResult{}, []any{ValueJSON{}, ValueRender{}, ValueRaw{}}},
	} {
		var want []string
		for _, s := range tc.shapes {
			for _, n := range jsonNames(reflect.TypeOf(s)) {
				if !slices.Contains(want, n) {
					want = append(want, n)
				}
			}
		}
		sort.Strings(want)
		got := jsonNames(reflect.TypeOf(tc.union))
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("%T has members %v, its shapes %v", tc.union, got, want)
		}
	}
}

// jsonNames lists the JSON member names of struct type rt (embedded
// structs flattened).
func jsonNames(rt reflect.Type) []string {
	var out []string
	for f := range rt.Fields() {
		if !f.IsExported() {
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonNames(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// TestParamsPresence: the params a client builds with plain fields still
// tell the kernel which members were present, as pointers would.
func TestParamsPresence(t *testing.T) {
	var e ExecParams
	if err := json.Unmarshal([]byte(`{"mode":"plan"}`), &e); err != nil || e.HasSrc() || e.Mode != "plan" {
		t.Errorf("no src: %+v %v", e, err)
	}
	if err := json.Unmarshal([]byte(`{"src":"","timeout_ms":0,"plan_ref":""}`), &e); err != nil || !e.HasSrc() || !e.HasTimeout() || !e.HasPlanRef() || e.Mode != "" {
		t.Errorf("empty src, zero timeout: %+v %v", e, err)
	}
	if err := json.Unmarshal([]byte(`{"src":"x","async":true,"background":true,"elide":{"max_rows":3},"display":{"fold_names":true}}`), &e); err != nil ||
		e.Src != "x" || e.HasTimeout() || e.HasPlanRef() || !e.Async || !e.Background || e.Elide.MaxRows != 3 || !e.Display.FoldNames {
		t.Errorf("members: %+v %v", e, err)
	}
	if err := json.Unmarshal([]byte(`{"src":5}`), &e); err == nil {
		t.Error("a number src decoded")
	}
	var a AttachParams
	if err := json.Unmarshal([]byte(`{"session":"","client":{"kind":"k","tty":true}}`), &a); err != nil || !a.HasSession() || a.HasToken() || a.HasCwd() || !a.Client.TTY {
		t.Errorf("attach: %+v %v", a, err)
	}
	var v ValueGetParams
	for src, want := range map[string][3]bool{ // ref, slice given, bad slice
		`{"ref":"out:1"}`:                    {true, false, false},
		`{"ref":"out:1","slice":null}`:       {true, false, false},
		`{"slice":[1,2]}`:                    {false, true, false},
		`{"ref":"out:1","slice":[1,2,3]}`:    {true, true, true},
		`{"ref":"out:1","slice":[]}`:         {true, true, true},
		`{"ref":"","slice":[5,9],"path":""}`: {true, true, false},
	} {
		if err := json.Unmarshal([]byte(src), &v); err != nil || [3]bool{v.HasRef(), v.SliceGiven(), v.BadSlice()} != want ||
			(want[1] && !want[2]) != (v.Slice != nil) {
			t.Errorf("value.get %s: %+v %v", src, v, err)
		}
	}
	var j JournalQueryParams
	if err := json.Unmarshal([]byte(`{"limit":0,"cursor":"12"}`), &j); err != nil || !j.HasLimit() || j.Cursor != 12 {
		t.Errorf("journal: %+v %v", j, err)
	}
	if err := json.Unmarshal([]byte(`{"cursor":12,"principal":"p"}`), &j); err != nil || j.HasLimit() || j.Cursor != 12 || j.Principal != "p" {
		t.Errorf("journal: %+v %v", j, err)
	}
	for _, bad := range []string{`{"cursor":0}`, `{"cursor":"x"}`, `{"cursor":true}`, `{"cursor":-3}`} {
		if err := json.Unmarshal([]byte(bad), &j); err == nil || err.Error() != errCursor.Error() {
			t.Errorf("journal %s: %v", bad, err)
		}
	}
	if err := json.Unmarshal([]byte(`{"cursor":null}`), &j); err != nil || j.Cursor != 0 {
		t.Errorf("null cursor: %+v %v", j, err)
	}
}

// TestParamsEncodeAsBefore: what a client sends for the params it builds
// most is byte for byte what it sent before they were declared here.
func TestParamsEncodeAsBefore(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{ExecParams{Src: "1"}, `{"src":"1"}`},
		{ExecParams{Src: "a", Mode: ModePlan, Position: PositionVal, Async: true, TimeoutMS: 5, Elide: &Elide{MaxRows: 3}, PlanRef: "p", Display: &Display{FoldNames: true}},
			`{"src":"a","mode":"plan","position":"value","async":true,"timeout_ms":5,"elide":{"max_rows":3},"plan_ref":"p","display":{"fold_names":true}}`},
		{ExecParams{Src: "a", Background: true}, `{"src":"a","background":true}`},
		{AttachParams{Session: "s", Token: "t", Client: &ClientInfo{Kind: "k"}, Cwd: "/d"}, `{"session":"s","token":"t","client":{"kind":"k","tty":false},"cwd":"/d"}`},
		{AttachParams{}, `{}`},
		{ValueGetParams{Ref: "out:1", Slice: &[2]int64{0, 4}, Format: FormatRaw}, `{"ref":"out:1","slice":[0,4],"format":"raw"}`},
		{JournalQueryParams{Limit: 5, Cursor: 9, Principal: "p"}, `{"principal":"p","limit":5,"cursor":9}`},
	} {
		got, err := json.Marshal(tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("%T: %s, %v; want %s", tc.v, got, err, tc.want)
		}
	}
}
