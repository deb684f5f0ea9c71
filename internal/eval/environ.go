package eval

import "slices"

// EnvironUnchanged is Environ for a caller that holds an earlier copy,
// prev: when the session environment still equals prev it returns prev
// itself (no copy) and true; otherwise a copy of the current environment
// and false. Most execs change no variable, and the kernel compares the
// environment after each one. The caller must not modify prev.
func (in *Interp) EnvironUnchanged(prev []string) ([]string, bool) {
	in.stateMu.Lock()
	defer in.stateMu.Unlock()
	if prev != nil && slices.Equal(in.env, prev) {
		return prev, true
	}
	return append([]string(nil), in.env...), false
}
