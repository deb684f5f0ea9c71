package contain

// ReapedLater is Reaped for a caller that has something more urgent to do
// first (the kernel's answer to the exec that ran the child): it marks the
// child reaped at once, as Reaped does before anything else, and returns
// the rest (the check that the child's tree is gone, which reads its cgroup
// leaf's cgroup.events, and the leaf's return to the scope's pool) for the
// caller to run once it is free; nil when the child was already marked
// reaped. The child is never signalled by its pid after ReapedLater; a
// later Reaped does nothing more. Until the returned settle runs, the scope
// lists the child and its leaf is not reused: Close and the next start's
// prune settle it as they settle any finished child whose tree is gone.
func (p *Proc) ReapedLater() (settle func()) {
	if !p.markReaped() {
		return nil
	}
	return p.settle
}
