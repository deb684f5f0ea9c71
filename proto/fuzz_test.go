package proto

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

// chunker yields its data in chunks whose sizes cycle through sizes, and
// sometimes returns io.EOF together with the last bytes.
type chunker struct {
	data  []byte
	sizes []byte
	i     int
}

func (c *chunker) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(c.sizes) > 0 {
		n = int(c.sizes[c.i%len(c.sizes)])%17 + 1
		c.i++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	if len(c.data) == 0 && c.i%2 == 0 {
		return n, io.EOF
	}
	return n, nil
}

// modelFrames is the reference split: newline-separated lines, blank ones
// skipped, the final unterminated line included, stopping with
// ErrFrameTooLong at the first line longer than max.
func modelFrames(data []byte, max int) ([][]byte, error) {
	var out [][]byte
	lines := bytes.Split(data, []byte("\n"))
	for _, l := range lines {
		if len(l) > max {
			return out, ErrFrameTooLong
		}
		if !isBlank(l) {
			out = append(out, l)
		}
	}
	return out, io.EOF
}

func FuzzReadFrame(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n[2]\n"), uint8(8), []byte{1, 2, 3})
	f.Add([]byte("abc\n\n  \r\ntoolongline\nx"), uint8(4), []byte{0})
	f.Add([]byte("no newline at all"), uint8(200), []byte{16, 0, 5})
	f.Add([]byte("\n\n\n"), uint8(0), []byte(nil))
	f.Fuzz(func(t *testing.T, data []byte, maxLine uint8, sizes []byte) {
		max := int(maxLine)%64 + 1
		r := NewReader(&chunker{data: data, sizes: sizes}, max)
		want, wantErr := modelFrames(data, max)
		for i := 0; ; i++ {
			frame, err := r.ReadFrame()
			if r.Buffered() > max+1 {
				t.Fatalf("buffered %d bytes, bound %d", r.Buffered(), max+1)
			}
			if err != nil {
				if !errors.Is(err, wantErr) {
					t.Fatalf("err = %v, want %v", err, wantErr)
				}
				if i != len(want) {
					t.Fatalf("got %d frames, want %d", i, len(want))
				}
				return
			}
			if i >= len(want) || !bytes.Equal(frame, want[i]) {
				t.Fatalf("frame %d = %q, want %q", i, frame, want)
			}
			if len(frame) > max {
				t.Fatalf("frame of %d bytes exceeds %d", len(frame), max)
			}
		}
	})
}

func FuzzDecodeWire(f *testing.F) {
	seeds := []string{
		`{"$":"null"}`, `{"$":"int","v":-3}`, `{"$":"float","v":"nan"}`, `{"$":"float","v":1e-7}`,
		`{"$":"str","v":"a\u00e9\n"}`, `{"$":"bytes","v":"AP8="}`,
		`{"$":"path","v":"/x","raw":"L3j/"}`, `{"$":"size","v":1}`, `{"$":"duration","v":5}`,
		`{"$":"datetime","v":"2026-07-16T09:30:00.5+05:30"}`, `{"$":"time","v":"01:02:03.4"}`,
		`{"$":"list","v":[{"$":"bool","v":true}]}`, `{"$":"record","v":{"a":{"$":"null"}}}`,
		`{"$":"table","cols":{"a":[{"$":"int","v":1}],"b":[{"$":"null"}]},"n":1}`,
		`{"$":"outcome","status":1,"ok":false,"signal":null,"out":{"$":"str","v":""},"err":{"$":"str","v":"e"},"dur_ns":1,"pid":null,"cmd":"false"}`,
		`{"$":"error","code":"c","msg":"m","span":{"start":0,"end":2},"hint":"h"}`,
		`{"$":"glob","pattern":"*","hidden":true}`, `{"$":"regex","src":"a+"}`,
		`{"$":"range","start":0,"end":3,"inclusive":false}`, `{"$":"task","id":"task:1","done":true}`,
		`{"$":"closure","repr":"fn()"}`, `{"$":"stream","label":"s"}`, `{"$":"secret","name":"k"}`,
		`{"$":"cmd","repr":"ls"}`, `{"$":"ref","uri":"shoal://out/1","of":"list","n":600,"preview":{"$":"list","v":[]}}`,
		`{"$":"table","cols":{"a":[]},"n":1}`, `[`, `{"$":"datetime","v":"1750000123"}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeWire(data)
		if err != nil {
			var we *WireError
			if !errors.As(err, &we) {
				t.Fatalf("error is not a *WireError: %T %v", err, err)
			}
			return
		}
		enc, err := MarshalWire(v)
		if err != nil {
			t.Fatalf("decoded value does not encode: %v\ninput %q", err, data)
		}
		v2, err := DecodeWire(enc)
		if err != nil {
			t.Fatalf("canonical form rejected: %v\n%s", err, enc)
		}
		if !equalWire(v, v2) {
			t.Fatalf("re-decoded value differs\ninput %q\nenc   %s", data, enc)
		}
		enc2, err := MarshalWire(v2)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("canonical form is not a fixed point:\n%s\n%s", enc, enc2)
		}
	})
}

// FuzzDecodeRequest checks the hand-written envelope scanner against
// encoding/json's reading of the same frame.
func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"parse","params":{"src":"1"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","m\u0065thod":"a","id":[1,{"x":"]}"}]}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"x","method":"y"}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, frame []byte) {
		req, rerr := DecodeRequest(frame)
		if depth, _ := scanJSON(frame); depth > MaxFrameDepth {
			return // encoding/json is no reference past its own depth limit; see TestDecodeRequestDeep
		}
		if !json.Valid(frame) {
			if rerr == nil || rerr.Code != CodeRPCParseError || req != nil {
				t.Fatalf("malformed frame: %v %+v", rerr, req)
			}
			return
		}
		var ref map[string]json.RawMessage
		if err := json.Unmarshal(frame, &ref); err != nil {
			if rerr == nil || rerr.Code != CodeInvalidRequest {
				t.Fatalf("non-object accepted: %v", rerr)
			}
			return
		}
		if rerr != nil && rerr.Code != CodeInvalidRequest {
			t.Fatalf("valid JSON object gave code %d", rerr.Code)
		}
		if id, ok := ref["id"]; ok != (req.ID != nil) || ok && !bytes.Equal(id, req.ID) {
			t.Fatalf("id %q, reference %q (present %v)", req.ID, id, ok)
		}
		if rerr != nil {
			return
		}
		var method string
		if err := json.Unmarshal(ref["method"], &method); err != nil || method != req.Method {
			t.Fatalf("method %q, reference %s", req.Method, ref["method"])
		}
		if p, ok := ref["params"]; ok && string(p) != "null" && !bytes.Equal(p, req.Params) {
			t.Fatalf("params %q, reference %q", req.Params, p)
		}
	})
}

// FuzzScanJSON checks the iterative validator against json.Valid, which
// agrees with it on everything not nested past encoding/json's limit.
func FuzzScanJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,2.5e-3,"x\u00e9",true,false,null,{}]}`, `[`, `]`, `{"a" 1}`, `[1,]`, `01`, `-`, `1.`, `"\x"`,
		"\"a\tb\"", `{"a":1,}`, ` [ [ ] , { } ] `, `1 2`, `"\ud800"`, `-0.0E+5`, `{"a":{"b":[{"c":[]}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var top topMembers
		depth, ok := scanJSONTop(data, &top)
		if depth > 10000 {
			return
		}
		if want := json.Valid(data); ok != want {
			t.Fatalf("scanJSON(%q) = %v, json.Valid = %v", data, ok, want)
		}
		if ok {
			checkTopMembers(t, data, &top)
		}
	})
}

// checkTopMembers checks what scanJSONTop recorded of valid JSON data
// against the members iterator's second walk.
func checkTopMembers(t *testing.T, data []byte, top *topMembers) {
	t.Helper()
	i := skipWS(data, 0)
	if data[i] != '{' {
		if top.n != 0 || top.over {
			t.Fatalf("%q is not an object, yet %d members were recorded", data, top.n)
		}
		return
	}
	it := newMembers(data, i)
	var keys, vals [][]byte
	for {
		k, _, v, ok := it.next()
		if !ok {
			break
		}
		keys, vals = append(keys, k), append(vals, v)
	}
	if top.over != (len(keys) > maxTopMembers) {
		t.Fatalf("%q: %d members, over = %v", data, len(keys), top.over)
	}
	if top.over {
		return
	}
	if top.n != len(keys) {
		t.Fatalf("%q: recorded %d members, the iterator finds %d", data, top.n, len(keys))
	}
	for k, m := range top.m[:top.n] {
		if got := data[m.key[0]:m.key[1]]; !bytes.Equal(got, keys[k]) {
			t.Fatalf("%q: member %d key %q, want %q", data, k, got, keys[k])
		}
		if got := data[m.val[0]:m.val[1]]; !bytes.Equal(got, vals[k]) {
			t.Fatalf("%q: member %d value %q, want %q", data, k, got, vals[k])
		}
	}
}

// TestScanJSONTopMembers checks the recorded members of a few objects,
// including more than topMembers holds.
func TestScanJSONTopMembers(t *testing.T) {
	for _, s := range []string{
		`{}`, `{"a":1}`, ` { "a" : [ ] , "b":{},"c":"x\"}" , "d":[1,{"e":2}] , "f" : null } `,
		`{"jsonrpc":"2.0","id":{"x":[1]},"method":"parse","params":{"src":"a\nb"}}`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}`, `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}`,
		`[{"a":1}]`, `"s"`, `{"\u0061":true,"b":-1.5e3}`,
	} {
		var top topMembers
		if _, ok := scanJSONTop([]byte(s), &top); !ok {
			t.Fatalf("%q: invalid", s)
		}
		checkTopMembers(t, []byte(s), &top)
	}
}
