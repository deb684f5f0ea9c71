package host

import (
	"context"
	"reflect"
	"testing"
	"time"
)

// TestRecorderMatchesGate checks the Recorder records exactly the ops the
// OS host asks its Authorizer, for every method.
func TestRecorderMatchesGate(t *testing.T) {
	for _, tc := range gateCases(prog(t, "sh")) {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, "a.txt", "sub/b.txt", "sub/deep/c.txt")
			rec := &recorder{} // allows everything
			r := NewRecording(NewOS(rec))
			_ = tc.call(context.Background(), r, dir) // outcomes vary; the ops must not
			// Real and Tree are what the OS host works out for its gate
			// (symlinks, a directory's tree); a Recorder records the ops
			// as asked.
			want := append([]Op(nil), rec.ops...)
			if tc.name == "Glob" && len(want) > 1 {
				// The walk's own asks for the directories it lists
				// beneath the first are not the plan's (Recorder.Glob).
				want = want[:1]
			}
			for i := range want {
				want[i].Real, want[i].Tree = "", false
			}
			if got := r.Ops(); !reflect.DeepEqual(got, want) {
				t.Errorf("Recorder ops %+v, gate asked %+v", got, want)
			}
			if len(r.Ops()) == 0 {
				t.Error("nothing recorded")
			}
			r.Reset()
			if len(r.Ops()) != 0 {
				t.Error("Reset kept ops")
			}
		})
	}
}

func TestRecorderNow(t *testing.T) {
	fixed := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	r := NewRecording(NewOS(DenyAll, WithClock(func() time.Time { return fixed })))
	if got := r.Now(); !got.Equal(fixed) {
		t.Errorf("Now = %v, want %v", got, fixed)
	}
	if len(r.Ops()) != 0 {
		t.Errorf("Now recorded %v", r.Ops())
	}
}

func TestEnvironOption(t *testing.T) {
	env := []string{"A=1", "B=2"}
	h := NewOS(AllowAll, WithEnviron(env))
	got, err := h.Environ(context.Background())
	if err != nil || !reflect.DeepEqual(got, env) {
		t.Errorf("Environ = %v, %v", got, err)
	}
	got[0] = "mutated"
	again, _ := h.Environ(context.Background())
	if again[0] != "A=1" || env[0] != "A=1" {
		t.Error("Environ shares its slice with callers")
	}
}
