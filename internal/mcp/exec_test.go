package mcp

import (
	"context"
	"testing"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// TestDetach: the detached context outlives its parent's cancellation
// (for CancelSettle), ends then, and ends at once when stopped.
func TestDetach(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	d, stop := detach(parent)
	defer stop()
	cancel()
	select {
	case <-d.Done():
		t.Fatal("the detached context ended with its parent")
	case <-time.After(100 * time.Millisecond):
	}
	select {
	case <-d.Done():
	case <-time.After(CancelSettle + 10*time.Second):
		t.Fatal("the detached context outlived CancelSettle after its parent ended")
	}
	d2, stop2 := detach(context.Background())
	stop2()
	if d2.Err() == nil {
		t.Fatal("stop did not end the detached context")
	}
}

// TestTaskRecordTerminal: which task states end an await.
func TestTaskRecordTerminal(t *testing.T) {
	for state, want := range map[string]bool{"running": false, "cancelling": false, "completed": true, "failed": true, "cancelled": true} {
		if got := terminal(&proto.TaskRecord{State: state}); got != want {
			t.Errorf("%s: terminal %v, want %v", state, got, want)
		}
	}
}
