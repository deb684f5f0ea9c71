package journal

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Texts with NULs, colons, digits, spaces and non-ASCII come back whole
// through the packed read.
func TestPackedRowRoundTrip(t *testing.T) {
	d := openTemp(t)
	st := -7
	in := Entry{Session: "s:1 2", Principal: "agent:p\x00q", Cwd: "/tmp/ä 3:", Src: "echo \"a\x00b\" 12:34 ", Verdict: "deny",
		AST: json.RawMessage(`{"k":"x:1"}`), Effects: json.RawMessage(`[{"kind":"fs_read"}]`), Status: &st, Code: "cmd_failed",
		RefN: 41, Outputs: []Output{{Kind: OutValue, Hash: "blake3:ab", Len: 3}}, Transcript: true, Opaque: true}
	id, err := d.Record(&in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Session != in.Session || got.Principal != in.Principal || got.Cwd != in.Cwd || got.Src != in.Src ||
		got.Verdict != in.Verdict || string(got.AST) != string(in.AST) || string(got.Effects) != string(in.Effects) ||
		got.Status == nil || *got.Status != st || got.Code != in.Code || got.RefN != 41 || !got.Opaque || !got.Finished ||
		got.Seq != 1 || got.TSeq != 1 || !reflect.DeepEqual(got.Outputs, in.Outputs) || got.Head != "echo" {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, in)
	}
	// NULL AST and effects, NULL status.
	id, _ = d.Record(&Entry{Session: "s", Principal: "p", Src: ""})
	got, _ = d.Get(id)
	if got.AST != nil || got.Effects != nil || got.Status != nil || got.Src != "" {
		t.Fatalf("nulls: %+v", got)
	}
}

// pack is the packing written plainly, for the fuzz target.
func pack(n [13]int64, t [11]string, null [11]bool) string {
	var b strings.Builder
	for _, v := range n {
		b.WriteString(strconv.FormatInt(v, 10))
		b.WriteByte(' ')
	}
	for i, s := range t {
		if null[i] {
			b.WriteString("-1:")
			continue
		}
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	return b.String()
}

func FuzzUnpackRow(f *testing.F) {
	f.Add("0 1 2 1 0 3 1 0 1 0 0 5 0 4:exec1:s1:p0:5:1 + 11:10:-1:5:allow2:[]0:", "src", int64(5))
	f.Add("", "", int64(0))
	f.Add("1 2 3", "a:b", int64(-1))
	f.Fuzz(func(t *testing.T, p, text string, num int64) {
		var e Entry
		_, _, _ = unpackRow(p, &e, new(int)) // never panics on any input
		// A packing of arbitrary fields unpacks to them.
		n := [13]int64{num, num, -num, 1, 0, num, 1, num, 0, 1, num, 2, 3}
		ts := [11]string{"exec", text, text + ":", "9:" + text, text, "", text, "[]", "allow", "[]", text}
		var null [11]bool
		null[7] = len(text)%2 == 1
		var got Entry
		mask, outs, err := unpackRow(pack(n, ts, null), &got, new(int))
		if err != nil {
			t.Fatalf("unpack of a packing: %v", err)
		}
		if mask != num || outs != "[]" || got.Session != text || got.Principal != text+":" || got.Cwd != "9:"+text ||
			got.Src != text || string(got.AST) != text || (got.Effects == nil) != null[7] || got.Code != text ||
			got.Status == nil || *got.Status != int(num) || got.Seq != 2 || got.TSeq != 3 {
			t.Fatalf("unpacked %+v", got)
		}
	})
}

// cutInt reads a field exactly as strconv.ParseInt of the text before
// the separator did: the same values, the same fields refused.
func FuzzCutInt(f *testing.F) {
	for _, s := range []string{"0 ", "-1:", "+7 x", "007 ", "9223372036854775807 ", "-9223372036854775808 ", "9223372036854775808 ",
		"99999999999999999999 ", "9999999999999999999 ", "-9223372036854775809 ", "-9999999999999999999 ", "1765011600123456789 ", "0009223372036854775807 ", "123456789012345678 ", "1234567890123456789 ", "- ", "+ ", " ", "1_0 ", "0x1f ", "12", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		for _, sep := range []byte{' ', ':'} {
			n, rest, ok := cutInt(p, sep)
			end := strings.IndexByte(p, sep)
			var want int64
			var err error = strconv.ErrSyntax
			if end >= 0 {
				want, err = strconv.ParseInt(p[:end], 10, 64)
			}
			if ok != (err == nil) || ok && (n != want || rest != p[end+1:]) {
				t.Fatalf("cutInt(%q, %q) = %d, %q, %v; ParseInt: %d, %v", p, sep, n, rest, ok, want, err)
			}
		}
	})
}
