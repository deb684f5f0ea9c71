package namespaces

import (
	"strconv"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// wideDocs returns, per format, a document of one mapping with n keys and
// its floor: a document of about the same size holding one list of n
// scalars. Reading the mapping must cost about what the list costs (it
// once took seconds, finding each key by scanning the ones before it).
func wideDocs(n int) map[string][2]string {
	var tw, tf, jw, jf, yw, yf strings.Builder
	jw.WriteString("{")
	jf.WriteString("[")
	tf.WriteString("a = [")
	for i := 0; i < n; i++ {
		k := "k" + strconv.Itoa(i)
		if i > 0 {
			jw.WriteString(",")
			jf.WriteString(",")
			tf.WriteString(",")
		}
		tw.WriteString(k + ".a = 1\n")
		tf.WriteString(`"` + k + `"`)
		jw.WriteString(`"` + k + `":1`)
		jf.WriteString(`"` + k + `"`)
		yw.WriteString(k + ": 1\n")
		yf.WriteString("- " + k + "\n")
	}
	jw.WriteString("}")
	jf.WriteString("]")
	tf.WriteString("]")
	return map[string][2]string{
		"json": {jw.String(), jf.String()},
		"toml": {tw.String(), tf.String()},
		"yaml": {yw.String(), yf.String()},
	}
}

func BenchmarkParseWide(b *testing.B) {
	docs := wideDocs(20000)
	for _, ns := range []string{"json", "toml", "yaml"} {
		parse := lookupFn(b, ns, "parse")
		for i, kind := range []string{"mapping", "floor-list"} {
			doc := value.Args{Pos: []value.Value{value.Str(docs[ns][i])}}
			b.Run(ns+"/"+kind, func(b *testing.B) {
				b.SetBytes(int64(len(docs[ns][i])))
				for b.Loop() {
					if _, err := parse(nil, doc); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func lookupFn(b *testing.B, ns, fn string) func(value.Env, value.Args) (value.Value, error) {
	nv, _ := Lookup(ns)
	return nv.(*value.Namespace).Members[fn].(*value.Builtin).Fn
}
