package budget

import (
	"errors"
	"testing"
)

// TestRegisterUnregister: a registration is called by Cancel until it is
// unregistered (twice is harmless), and a nil budget's does nothing.
func TestRegisterUnregister(t *testing.T) {
	b := New("session memory", 0, nil)
	calls := 0
	r := b.Register(func(error) { calls++ })
	kept := b.Register(func(error) { calls += 10 })
	if n := b.Cancel(errors.New("x")); n != 2 || calls != 11 {
		t.Fatalf("Cancel called %d functions (calls %d), want 2 (11)", n, calls)
	}
	r.Unregister()
	r.Unregister()
	if n := b.Cancel(errors.New("x")); n != 1 || calls != 21 {
		t.Fatalf("after Unregister, Cancel called %d (calls %d), want 1 (21)", n, calls)
	}
	kept.Unregister()
	var nb *Budget
	nb.Register(func(error) { t.Error("called") }).Unregister()
	if a := testing.AllocsPerRun(100, func() { b.Register(nil).Unregister() }); a > 1 {
		t.Errorf("Register and Unregister allocated %.1f times, want 1", a)
	}
}
