package eval

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

// TestUndoLogBound: an evaluation that records more than MaxUndoSteps has
// no complete inverse.
func TestUndoLogBound(t *testing.T) {
	l := &UndoLog{}
	for i := 0; i <= MaxUndoSteps; i++ {
		l.add(UndoStep{Op: UndoRemove, Path: "/x"})
	}
	steps, lost := l.Steps()
	if len(steps) != MaxUndoSteps || lost == "" {
		t.Fatalf("%d steps, lost %q", len(steps), lost)
	}
	// Without a log in the context nothing is recorded (the CLI).
	undoRecord(context.Background(), UndoStep{})
}

// TestUndoRecordJSON: the record the kernel stores round-trips, field
// names as documented.
func TestUndoRecordJSON(t *testing.T) {
	l := &UndoLog{}
	l.add(UndoStep{Op: UndoRestore, Path: "/w/a", From: "/tmp/shoal-trash/x/1-a", Size: 3, ModNS: 7})
	l.add(UndoStep{Op: UndoRemove, Path: "/w/d", Dir: true})
	l.lose("a redirect")
	b, err := json.Marshal(l.Record())
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"steps":[{"op":"restore","path":"/w/a","from":"/tmp/shoal-trash/x/1-a","size":3,"mtime_ns":7},{"op":"remove","path":"/w/d","dir":true,"size":0}],"lost":"a redirect"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back UndoRecord
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, l.Record()) {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	if b, _ := json.Marshal((&UndoLog{}).Record()); string(b) != `{"steps":[]}` {
		t.Errorf("empty record %s", b)
	}
}
