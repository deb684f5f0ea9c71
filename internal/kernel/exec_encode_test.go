package kernel

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/shoalgo/shoal/internal/tasks"
	"github.com/shoalgo/shoal/proto"
)

// sameJSON fails unless a and b decode to the same JSON value.
func sameJSON(t *testing.T, what string, a, b []byte) {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: hand-written %q: %v", what, a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: encoding/json %q: %v", what, b, err)
	}
	if !reflect.DeepEqual(x, y) {
		t.Fatalf("%s:\n hand-written %s\nencoding/json %s", what, a, b)
	}
}

// The exec path encodes its answer and its events by hand; each must say
// what encoding/json says of the same struct.
func TestExecEncodingMatchesEncodingJSON(t *testing.T) {
	texts := []string{"", "2", "a \"quoted\" \\ line\nnext\ttab", "<b> & </b>", "\u2028\u2029 é 中 😀", "\x00\x1f\x7f", "bad \xff utf8"}
	for _, s := range texts {
		res := &execResult{Ref: "$" + s, Value: json.RawMessage(`{"$":"int","v":2}`), Render: s}
		for _, id := range []json.RawMessage{json.RawMessage(`7`), json.RawMessage(`"x"`), nil} {
			req := &proto.Request{ID: id}
			f, err := valueAnswer(res, req)
			if err != nil {
				t.Fatal(err)
			}
			want, err := proto.EncodeFrame(proto.NewResponse(id, res))
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "exec answer", f, want)
			releaseFrame(f)
		}
		for _, ev := range []jsonAppender{
			transcriptEvent{Ref: "$1", Src: s, OK: true},
			transcriptEvent{Ref: "$2", Src: s, SrcTruncated: true, Code: "bad" + s},
			renderEvent{Ref: "$3", Render: s},
			outputEvent{Ref: "$4", Output: s, Bytes: int64(len(s)), Truncated: s == ""},
		} {
			want, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, reflect.TypeOf(ev).Name(), ev.AppendJSON(nil), want)
		}
	}
	// A task record's event is hand-written too; it must say what the
	// record's own MarshalJSON says.
	for _, rec := range []tasks.Record{
		{Task: "task:3", Session: "s<1>", State: tasks.Completed, StartedNs: 5, FinishedNs: 9, ResultRef: "$2", Foreground: true},
		{Task: "task:4", Session: "s", State: tasks.Running, StartedNs: 1, Suspended: true, TimedOut: true},
		{Task: "task:5", Session: "é\n", State: tasks.Failed, StartedNs: 1, FinishedNs: 2, Err: errors.New("boom \"x\" <&>\x00")},
		{Task: "task:6", Session: "s", State: tasks.Cancelled, StartedNs: 1, FinishedNs: 3, Err: tasks.ErrCancelled, Label: "not on the wire"},
		{Task: "task:7", Session: "s", State: tasks.Running, StartedNs: 1, Language: true, Desc: "spawn { sleep \"1s\" } <&>"},
	} {
		want, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, "task record "+rec.Task, taskEvent(rec).AppendJSON(nil), want)
	}
}
