package proto

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

// The kernel's params structs before the shapes were declared here: what
// the kernel decided from a request must not change.
type oldElide struct {
	MaxBytes *int `json:"max_bytes"`
	MaxRows  *int `json:"max_rows"`
	MaxItems *int `json:"max_items"`
}

type oldExec struct {
	Src        *string   `json:"src"`
	Mode       string    `json:"mode"`
	Position   string    `json:"position"`
	Async      bool      `json:"async"`
	Background bool      `json:"background"`
	TimeoutMS  *int64    `json:"timeout_ms"`
	Elide      *oldElide `json:"elide"`
	PlanRef    *string   `json:"plan_ref"`
	Display    *struct {
		TimePrecisionNS int64 `json:"time_precision_ns"`
		FoldNames       bool  `json:"fold_names"`
	} `json:"display"`
}

type oldValueGet struct {
	Ref    *string   `json:"ref"`
	Path   string    `json:"path"`
	Slice  []int64   `json:"slice"`
	Format string    `json:"format"`
	Elide  *oldElide `json:"elide"`
}

type oldAttach struct {
	Session *string `json:"session"`
	Token   *string `json:"token"`
	Cwd     *string `json:"cwd"`
	Client  *struct {
		Kind string `json:"kind"`
		TTY  bool   `json:"tty"`
	} `json:"client"`
}

type oldJournal struct {
	Since     *int64          `json:"since"`
	Until     *int64          `json:"until"`
	Principal *string         `json:"principal"`
	Session   *string         `json:"session"`
	Head      *string         `json:"head"`
	OK        *bool           `json:"ok"`
	Effects   []string        `json:"effects"`
	Limit     *int            `json:"limit"`
	Cursor    json.RawMessage `json:"cursor"`
}

// oldCursor is the kernel's cursorParam before JournalCursor: an entry id
// above 0, as a number or a decimal string; 0 for none.
func oldCursor(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, true
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err == nil && n > 0 {
		return n, true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
			return n, true
		}
	}
	return 0, false
}

// FuzzParamsAsBefore: for any params object, the proto types decode
// exactly when the kernel's old structs did, and say the same: the same
// members present, the same values (elide budgets compared as the kernel
// reads them: absent and 0 are the default).
func FuzzParamsAsBefore(f *testing.F) {
	for _, s := range []string{
		`{"src":"1"}`, `{}`, `{"src":null}`, `{"src":"","timeout_ms":0}`, `{"SRC":"x","Src":"y"}`,
		`{"src":"a","mode":"plan","position":"value","async":true,"background":true,"timeout_ms":5,"elide":{"max_rows":3,"max_bytes":-1},"plan_ref":"","display":{"fold_names":true}}`,
		`{"ref":"out:1","slice":[1,2,3],"path":".a","format":"raw"}`, `{"ref":"out:1","slice":[]}`, `{"slice":null}`,
		`{"session":"","token":"t","cwd":"/x","client":{"kind":"k","tty":true}}`, `{"timeout_ms":"5"}`, `{"elide":null}`,
		`{"limit":0,"cursor":"12","principal":"p","ok":false,"effects":["fs_read"]}`, `{"cursor":[1]}`, `{"cursor":-1,"limit":5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || len(b) == 0 || b[0] != '{' {
			return
		}
		var oe oldExec
		var ne ExecParams
		oerr, nerr := json.Unmarshal(b, &oe), ne.UnmarshalJSON(b)
		if (oerr == nil) != (nerr == nil) {
			t.Fatalf("exec %s: before %v, now %v", b, oerr, nerr)
		}
		if oerr == nil {
			if (oe.Src != nil) != ne.HasSrc() || (oe.Src != nil && *oe.Src != ne.Src) ||
				(oe.TimeoutMS != nil) != ne.HasTimeout() || (oe.TimeoutMS != nil && *oe.TimeoutMS != ne.TimeoutMS) ||
				(oe.PlanRef != nil) != ne.HasPlanRef() || (oe.PlanRef != nil && *oe.PlanRef != ne.PlanRef) ||
				oe.Mode != ne.Mode || oe.Position != ne.Position || oe.Async != ne.Async || oe.Background != ne.Background ||
				!sameElide(oe.Elide, ne.Elide) || (oe.Display == nil) != (ne.Display == nil) ||
				(oe.Display != nil && (oe.Display.FoldNames != ne.Display.FoldNames || oe.Display.TimePrecisionNS != ne.Display.TimePrecisionNS)) {
				t.Fatalf("exec %s: before %+v, now %+v", b, oe, ne)
			}
		}
		var ov oldValueGet
		var nv ValueGetParams
		oerr, nerr = json.Unmarshal(b, &ov), nv.UnmarshalJSON(b)
		if (oerr == nil) != (nerr == nil) {
			t.Fatalf("value.get %s: before %v, now %v", b, oerr, nerr)
		}
		if oerr == nil {
			if (ov.Ref != nil) != nv.HasRef() || (ov.Ref != nil && *ov.Ref != nv.Ref) || ov.Path != nv.Path || ov.Format != nv.Format ||
				(ov.Slice != nil) != nv.SliceGiven() || (ov.Slice != nil && len(ov.Slice) != 2) != nv.BadSlice() ||
				(len(ov.Slice) == 2 && (nv.Slice == nil || !reflect.DeepEqual(ov.Slice, nv.Slice[:]))) || !sameElide(ov.Elide, nv.Elide) {
				t.Fatalf("value.get %s: before %+v, now %+v", b, ov, nv)
			}
		}
		var oj oldJournal
		var nj JournalQueryParams
		oerr, nerr = json.Unmarshal(b, &oj), nj.UnmarshalJSON(b)
		cur, curOK := oldCursor(oj.Cursor)
		if (oerr == nil && curOK) != (nerr == nil) {
			t.Fatalf("journal.query %s: before %v (cursor ok %v), now %v", b, oerr, curOK, nerr)
		}
		if nerr == nil {
			str := func(p *string) string {
				if p == nil {
					return ""
				}
				return *p
			}
			if (oj.Limit != nil) != nj.HasLimit() || (oj.Limit != nil && *oj.Limit != nj.Limit) || cur != int64(nj.Cursor) ||
				!reflect.DeepEqual(oj.Since, nj.Since) || !reflect.DeepEqual(oj.Until, nj.Until) || !reflect.DeepEqual(oj.OK, nj.OK) ||
				str(oj.Principal) != nj.Principal || str(oj.Session) != nj.Session || str(oj.Head) != nj.Head || !reflect.DeepEqual(oj.Effects, nj.Effects) {
				t.Fatalf("journal.query %s: before %+v, now %+v", b, oj, nj)
			}
		}
		var oa oldAttach
		var na AttachParams
		oerr, nerr = json.Unmarshal(b, &oa), na.UnmarshalJSON(b)
		if (oerr == nil) != (nerr == nil) {
			t.Fatalf("attach %s: before %v, now %v", b, oerr, nerr)
		}
		if oerr == nil {
			if (oa.Session != nil) != na.HasSession() || (oa.Session != nil && *oa.Session != na.Session) ||
				(oa.Token != nil) != na.HasToken() || (oa.Token != nil && *oa.Token != na.Token) ||
				(oa.Cwd != nil) != na.HasCwd() || (oa.Cwd != nil && *oa.Cwd != na.Cwd) {
				t.Fatalf("attach %s: before %+v, now %+v", b, oa, na)
			}
		}
	})
}

// sameElide compares budgets as the kernel reads them: nil, absent and 0
// mean the default; a negative one is refused either way.
func sameElide(o *oldElide, n *Elide) bool {
	if (o == nil) != (n == nil) {
		return false
	}
	if o == nil {
		return true
	}
	v := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	return v(o.MaxBytes) == n.MaxBytes && v(o.MaxRows) == n.MaxRows && v(o.MaxItems) == n.MaxItems
}
