package mcp

import (
	"encoding/json"
	"testing"
)

var startedSeeds = []string{
	`{"ref":"out:5","value":{"$":"list","v":[1,2,3]},"render":"[1, 2, 3]","cwd":"/tmp/w"}`,
	`{"task":"t1","events":"task:t1","timed_out":true}`,
	`{"task":"t1","events":"task:t1"}`,
	`{"task":"","timed_out":true}`,
	`{"Task":"t1","TIMED_OUT":true}`,
	`{"t\u0061sk":"t1","timed_out":true}`,
	"{\"ta\u017fk\":\"t1\",\"timed_out\":true}",
	`{"task":"t1","timed_out":true,"events":5}`,
	`{"task":"t1","timed_out":"yes"}`,
	`{"task":"t1","timed_out":true,"task":""}`,
	`null`,
	`[{"task":"t1","timed_out":true}]`,
	`{"task":"t1","timed_out":true`,
	`"task"`,
}

// TestStartedTaskMatchesReflection: the scan answers as json.Unmarshal
// does for each seed (FuzzStartedTask for any input).
func TestStartedTaskMatchesReflection(t *testing.T) {
	for _, s := range startedSeeds {
		checkStarted(t, []byte(s))
	}
}

func FuzzStartedTask(f *testing.F) {
	for _, s := range startedSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkStarted(t, b) })
}

func checkStarted(t *testing.T, b []byte) {
	t.Helper()
	got, gok := startedTask(json.RawMessage(b))
	want, wok := startedTaskReflect(json.RawMessage(b))
	if got != want || gok != wok {
		t.Fatalf("%q: scan %+v %v, reflection %+v %v", b, got, gok, want, wok)
	}
}

// BenchmarkStartedTask: reading a value's answer, which is no task, by
// the scan and by reflection.
func BenchmarkStartedTask(b *testing.B) {
	raw := json.RawMessage(`{"cwd":"/tmp/mk2790695789/work","ref":"out:11","render":"[1, 2, 3]","value":{"$":"list","v":[{"$":"int","v":1},{"$":"int","v":2},{"$":"int","v":3}]}}`)
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			startedTask(raw)
		}
	})
	b.Run("reflect", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			startedTaskReflect(raw)
		}
	})
}
