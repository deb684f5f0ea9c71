package proto

import (
	"fmt"
	"strings"
	"testing"
)

// TestScanFrameMembers: Members yields every top-level member in order,
// repeated and escaped keys as written, whether the scan held them all or
// had to walk the frame again (more than maxTopMembers); nothing for an
// invalid frame or one that is not an object.
func TestScanFrameMembers(t *testing.T) {
	many := make([]string, 0, 3*maxTopMembers)
	for i := range 3 * maxTopMembers {
		many = append(many, fmt.Sprintf(`"k%d":[%d,{"x":"}"}]`, i, i))
	}
	for _, tc := range []struct {
		name, frame string
		first       byte
		want        []string // key=value pairs
	}{
		{"envelope", ` {"jsonrpc":"2.0","id":7,"method":"m","params":{"a":[1]}} `, '{',
			[]string{`"jsonrpc"="2.0"`, `"id"=7`, `"method"="m"`, `"params"={"a":[1]}`}},
		{"repeated and escaped", `{"id":1,"\u0069d":2,"id":3}`, '{', []string{`"id"=1`, `"\u0069d"=2`, `"id"=3`}},
		{"more than held", "{" + strings.Join(many, ",") + "}", '{', nil},
		{"array", `[1,2]`, '[', []string{}},
		{"invalid", `{"a":1,}`, '{', []string{}},
		{"empty", ``, 0, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := ScanFrame([]byte(tc.frame))
			if f.First != tc.first {
				t.Errorf("First = %q, want %q", f.First, tc.first)
			}
			var got []string
			for k, v := range f.Members() {
				got = append(got, string(k)+"="+string(v))
			}
			want := tc.want
			if want == nil {
				for i := range 3 * maxTopMembers {
					want = append(want, fmt.Sprintf(`"k%d"=[%d,{"x":"}"}]`, i, i))
				}
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("Members =\n%q\nwant\n%q", got, want)
			}
		})
	}
}
