package eval

// Restore puts back what a session had before its kernel restarted: its
// environment (when env is not nil) and its bindings, each declared in the
// session scope as it was (let or var), charged to the session's memory
// budget. A binding the budget refuses is left out and its name returned.
// It takes the session lock; call it before the session evaluates.
func (in *Interp) Restore(env []string, binds []Binding) (refused []string) {
	release := in.holdAlways()
	defer release()
	if env != nil {
		in.stateMu.Lock()
		in.env = append([]string(nil), env...)
		in.stateMu.Unlock()
	}
	for _, b := range binds {
		if in.meter != nil {
			if err := in.meter.account(b.Value); err != nil {
				refused = append(refused, b.Name)
				continue
			}
		}
		in.root.declare(b.Name, b.Value, b.Mutable)
	}
	return refused
}
