package client

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/shoalgo/shoal/proto"
)

// plainResponseCases are frames plainResponse reads (the first five) or
// declines.
var plainResponseCases = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"ref":"out:1","value":{"$":"int","v":42}}}`,
	` { "id" : 18446744073709551615 , "result" : [ 1 , "a\u00e9" ] , "jsonrpc" : null } `,
	`{"id":0,"result":null}`,
	`{"result":"x","id":7}`,
	"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":\"\xff\"}",
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"result":1,"error":null}`,
	`{"jsonrpc":"2.0","id":1,"result":1,"method":"event"}`,
	`{"jsonrpc":"2.0","id":"1","result":1}`,
	`{"jsonrpc":"2.0","id":-1,"result":1}`,
	`{"jsonrpc":"2.0","id":1.0,"result":1}`,
	`{"jsonrpc":"2.0","id":1e2,"result":1}`,
	`{"jsonrpc":"2.0","id":18446744073709551616,"result":1}`,
	`{"jsonrpc":"2.0","id":null,"result":1}`,
	`{"jsonrpc":"2.0","ID":1,"result":1}`,
	`{"jsonrpc":"2.0","id":1,"Result":1}`,
	`{"jsonrpc":"2.0","id":1,"result":1,"result":2}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"result":1}`,
	`{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"result":1}`,
	`{"jsonrpc":"2.0","\u0069d":1,"result":1}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","result":1}`,
	`{"jsonrpc":"2.0","method":"event","params":{}}`,
	`[1]`, `1`, `{`, ``,
}

// TestPlainResponseMatches: plainResponse reads the plain answers and
// reads them as dispatch's json.Unmarshal into inbound does.
func TestPlainResponseMatches(t *testing.T) {
	for i, c := range plainResponseCases {
		ok := checkPlainResponse(t, []byte(c))
		if want := i < 5; ok != want {
			t.Errorf("%s: read %v, want %v", c, ok, want)
		}
	}
}

// checkPlainResponse compares plainResponse's reading of frame with the
// reflective one, reporting whether plainResponse read it.
func checkPlainResponse(t *testing.T, frame []byte) bool {
	t.Helper()
	f := proto.ScanFrame(frame)
	id, res, ok := plainResponse(&f)
	if !ok {
		return false
	}
	var in inbound
	if err := json.Unmarshal(frame, &in); err != nil {
		t.Fatalf("%q: read, but json.Unmarshal fails: %v", frame, err)
	}
	wantID, err := strconv.ParseUint(string(in.ID), 10, 64)
	if in.ID == nil || err != nil || in.Error != nil {
		t.Fatalf("%q: read as id %d, the reflective reading is %+v", frame, id, in)
	}
	want := in.Result
	if want == nil {
		want = json.RawMessage("null")
	}
	if id != wantID || string(res) != string(want) {
		t.Fatalf("%q: id %d result %s, want %d %s", frame, id, res, wantID, want)
	}
	// The reader reuses the frame's memory: the result is a copy.
	before := string(res)
	clear(frame)
	if string(res) != before {
		t.Fatal("the result shares the frame's memory")
	}
	return true
}

// FuzzPlainResponse: plainResponse declines or reads a frame as the
// reflective decode does.
func FuzzPlainResponse(f *testing.F) {
	for _, c := range plainResponseCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		checkPlainResponse(t, bytes.Clone(frame))
	})
}
