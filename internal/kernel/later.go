package kernel

// answeredThenFlush runs, once call is answered, the tail its session's
// latest spawn left (host.Later): the closes of the child's spent pipes and
// pidfd and the return of its cgroup leaf to the pool, which the answer
// did not wait for. A session's next spawn runs a tail still pending
// first, and the session's close runs the last.
func answeredThenFlush(call *call) {
	if call.att != nil {
		call.att.sess.later.Flush()
	}
}
