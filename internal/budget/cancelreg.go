package budget

// CancelRegistration is a function registered with Register, until
// Unregister. Its zero value (from a nil Budget) unregisters nothing.
type CancelRegistration struct {
	b *Budget
	c *canceller
}

// Register is OnCancel returning a value instead of a closure: the
// evaluator registers every evaluation's cancellation, so a request pays
// one allocation (the registration) instead of two.
func (b *Budget) Register(f func(error)) CancelRegistration {
	if b == nil {
		return CancelRegistration{}
	}
	c := &canceller{f: f}
	b.mu.Lock()
	if b.cancels == nil {
		b.cancels = map[*canceller]struct{}{}
	}
	b.cancels[c] = struct{}{}
	b.mu.Unlock()
	return CancelRegistration{b: b, c: c}
}

// Unregister takes the function back; Cancel no longer calls it.
// Unregistering twice is a no-op.
func (r CancelRegistration) Unregister() {
	if r.b == nil {
		return
	}
	r.b.mu.Lock()
	delete(r.b.cancels, r.c)
	r.b.mu.Unlock()
}
