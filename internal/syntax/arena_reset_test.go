package syntax

import (
	"reflect"
	"testing"
)

// TestArenaResetLearnsAndClears: across parses of different sources (a
// large one, a small one that leaves most kinds untouched, the large one
// again), reset leaves every slab's count of what this parse used
// (last = used + len(buf), zero for a kind the parse did not touch, even
// when the one before did), and every seq's scratch stack all zero up to
// its capacity (it pins no node of the finished tree), as a reset that
// recycles every slab and clears every stack whole does.
func TestArenaResetLearnsAndClears(t *testing.T) {
	p := new(parser)
	p.clearCache()
	for _, src := range []string{benchSource(), "^/bin/true", "let x = 1\nx + 2", benchSource(), "^/bin/true"} {
		p.src = src
		p.ar.prepare(len(src))
		p.parseStmts(false)
		ar := reflect.ValueOf(&p.ar).Elem()
		want := map[string]int64{}
		for i := 0; i < ar.NumField(); i++ {
			f := ar.Field(i)
			if f.Kind() != reflect.Struct {
				continue
			}
			if b := f.FieldByName("buf"); b.IsValid() {
				want[ar.Type().Field(i).Name] = f.FieldByName("used").Int() + int64(b.Len())
			}
		}
		p.ar.reset(len(src))
		for i := 0; i < ar.NumField(); i++ {
			f := ar.Field(i)
			if f.Kind() != reflect.Struct {
				continue
			}
			name := ar.Type().Field(i).Name
			if w, ok := want[name]; ok {
				if got := f.FieldByName("last").Int(); got != w {
					t.Errorf("%.20q: %s.last = %d, want %d", src, name, got, w)
				}
			}
			if st := f.FieldByName("stack"); st.IsValid() {
				full := st.Slice(0, st.Cap())
				for j := 0; j < full.Len(); j++ {
					if !full.Index(j).IsZero() {
						t.Errorf("%.20q: %s.stack[%d] not cleared (len %d, cap %d)", src, name, j, st.Len(), st.Cap())
						break
					}
				}
			}
		}
	}
}
