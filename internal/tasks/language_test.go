package tasks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestStartLanguage: a language task's record says so and carries its
// desc (bounded by MaxDesc) on the wire; a held one is retained like a
// background task, an awaited one (a parallel branch) is a foreground task
// forgotten once it ends.
func TestStartLanguage(t *testing.T) {
	noLeaks(t)
	r := New()
	g := newGate()
	held, err := r.StartLanguage(alice, "spawn", false, g.work(1))
	if err != nil {
		t.Fatal(err)
	}
	<-g.started
	rec := held.Record()
	if !rec.Language || rec.Desc != "spawn" || rec.Foreground || rec.State != Running {
		t.Fatalf("held language task record %+v", rec)
	}
	b, _ := json.Marshal(rec)
	if !strings.Contains(string(b), `"language":true`) || !strings.Contains(string(b), `"desc":"spawn"`) {
		t.Errorf("wire record %s lacks language and desc", b)
	}
	if b, _ := json.Marshal(mustStart(t, r, bob, blockForever).Record()); strings.Contains(string(b), "language") || strings.Contains(string(b), "desc") {
		t.Errorf("an exec task's wire record %s shows language fields", b)
	}

	g2 := newGate()
	branch, err := r.StartLanguage(alice, strings.Repeat("x", 3*MaxDesc), true, g2.work(2))
	if err != nil {
		t.Fatal(err)
	}
	<-g2.started
	if rec := branch.Record(); !rec.Foreground || !rec.Language || len(rec.Desc) != MaxDesc {
		t.Fatalf("awaited language task record: foreground %v, language %v, desc %d bytes", rec.Foreground, rec.Language, len(rec.Desc))
	}
	if n := len(r.List(alice)); n != 2 {
		t.Fatalf("List shows %d tasks, want both running", n)
	}
	close(g.release)
	close(g2.release)
	waitDone(t, held)
	waitDone(t, branch)
	list := r.List(alice)
	if len(list) != 1 || list[0].Task != held.ID() || list[0].State != Completed {
		t.Fatalf("after both ended List = %+v, want only the held task, completed", list)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
