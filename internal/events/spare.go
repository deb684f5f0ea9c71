package events

// maxSpareRing is the largest ring a forgotten stream hands on to the
// stream created in its place (a task's stream holds two events).
const maxSpareRing = 8

// spareRing returns st's ring, emptied, for the stream that replaces st
// in its scope (streamLocked forgets the idlest stream of a scope at
// ScopeChannels to make room for a new one): nil when st's ring is larger
// than maxSpareRing. A kernel publishing a task.N stream for every exec
// forgets one and creates one an exec, and each new ring was an
// allocation. st is being forgotten (forgetLocked clears it and drops it
// from its scope), has no subscribers, and its ring is read only under
// Bus.mu, so nothing reads the array once st lets it go. Call with b.mu
// held.
func (st *stream) spareRing() []record {
	if len(st.ring) == 0 || len(st.ring) > maxSpareRing {
		return nil
	}
	r := st.ring
	clear(r) // nothing the old events held stays reachable
	return r
}
