package sandbox

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestEncodeRoundTrip(t *testing.T) {
	cases := []Rules{
		{},
		{RestrictFS: true},
		{RestrictNet: true, Hermetic: true},
		{RestrictFS: true, RestrictNet: true, Hermetic: true,
			ReadOnly: []string{"/usr", "/lib64", "/etc/ld.so.cache"}, ReadWrite: []string{"/tmp/work"},
			ConnectTCP: []uint16{0, 80, 443, 65535}, BindTCP: []uint16{8080}},
		{RestrictFS: true, ReadOnly: []string{"/a b/c,d;e%f", "/\xff\xfe/ü", "/new\nline", "/"}},
		{RestrictFS: true, ReadWrite: []string{"/x+y~z@w:v=u-t_s.r"}},
	}
	for _, r := range cases {
		for _, hidden := range []bool{false, true} {
			enc := encode(r, hidden)
			got, gotHidden, err := decode(enc)
			if err != nil {
				t.Fatalf("decode(encode(%+v)) = %q: %v", r, enc, err)
			}
			if !reflect.DeepEqual(got, r) || gotHidden != hidden {
				t.Errorf("round trip of %+v, %v via %q = %+v, %v", r, hidden, enc, got, gotHidden)
			}
			if again := encode(got, gotHidden); again != enc {
				t.Errorf("encode is not stable: %q then %q", enc, again)
			}
		}
	}
}

func TestEncodeSpelling(t *testing.T) {
	r := Rules{RestrictFS: true, Hermetic: true, ReadOnly: []string{"/a b", "/c"}, ConnectTCP: []uint16{443, 80}}
	if got, want := encode(r, true), "1;FHE;/a%20b,/c;;443,80;"; got != want {
		t.Errorf("encode = %q, want %q", got, want)
	}
}

func TestDecodeRejects(t *testing.T) {
	cases := []struct{ in, why string }{
		{"", "fields"},
		{"1;F;;;;;", "fields"},
		{"1;F;;;", "fields"},
		{"2;F;;;;", "version"},
		{"1;X;;;;", "flags"},
		{"1;HF;;;;", "flags"},
		{"1;FF;;;;", "flags"},
		{"1;EF;;;;", "flags"},
		{"1;FNHEE;;;;", "flags"},
		{"1;F;relative;;;", "absolute"},
		{"1;F;/a/../b;;;", "clean"},
		{"1;F;/a/;;;", "clean"},
		{"1;F;/a,;;;", "absolute"},
		{"1;F;/a b;;;", "plain"},
		{"1;F;/a%2;;;", "escape"},
		{"1;F;/a%zz;;;", "escape"},
		{"1;F;/a%2f;;;", "escape"},
		{"1;F;/a%41;;;", "spelling"},
		{"1;F;/a%00;;;", "spelling"},
		{"1;N;;;65536;", "port"},
		{"1;N;;;-1;", "port"},
		{"1;N;;;+1;", "port"},
		{"1;N;;;080;", "port"},
		{"1;N;;;80,;", "port"},
		{"1;N;;;;x", "port"},
		{"1;N;;;" + strings.Repeat("1,", MaxPorts) + "1;", "ports"},
		{"1;F;" + strings.Repeat("/a,", MaxRoots) + "/a;;;", "roots"},
		{"1;F;/" + strings.Repeat("a", MaxEncoded) + ";;;", "bytes"},
	}
	for _, c := range cases {
		_, _, err := decode(c.in)
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Errorf("decode(%.40q) = %v, want a *DecodeError", c.in, err)
			continue
		}
		if !strings.Contains(err.Error(), c.why) {
			t.Errorf("decode(%.40q) = %v, want it to mention %q", c.in, err, c.why)
		}
	}
}

// FuzzDecode: decode never panics, and what it accepts is the one
// spelling encode gives.
func FuzzDecode(f *testing.F) {
	f.Add("1;FNHE;/usr,/a%20b;/tmp;80,443;0")
	f.Add("1;;;;;")
	f.Add("1;F;/a%FF;;;")
	f.Fuzz(func(t *testing.T, s string) {
		r, hidden, err := decode(s)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("decode(%q) error %T is not a *DecodeError", s, err)
			}
			return
		}
		if enc := encode(r, hidden); enc != s {
			t.Fatalf("decode(%q) accepted a spelling encode writes as %q", s, enc)
		}
	})
}

func TestHideRevealEnv(t *testing.T) {
	env := []string{"PATH=/bin", "LD_PRELOAD=/tmp/x.so", "GODEBUG=inittrace=1", "EMPTY=", "noequals", "", "A=b=c"}
	hidden := hideEnv(env)
	for _, kv := range hidden {
		if !strings.HasPrefix(kv, envPrefix) {
			t.Errorf("%q is not hidden", kv)
		}
	}
	if got := revealEnv(hidden); !reflect.DeepEqual(got, env) {
		t.Errorf("revealEnv(hideEnv(env)) = %q, want %q", got, env)
	}
	if got := revealEnv([]string{"INJECTED=1", envPrefix + "A=1"}); !reflect.DeepEqual(got, []string{"A=1"}) {
		t.Errorf("revealEnv kept an entry that was not hidden: %q", got)
	}
}
