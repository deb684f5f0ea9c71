package proto

// Method names served by the kernel.
const (
	MethodKernelInfo        = "kernel.info"
	MethodSessionAttach     = "session.attach"
	MethodSessionEnv        = "session.env"
	MethodSessionReef       = "session.reef"
	MethodParse             = "parse"
	MethodComplete          = "complete"
	MethodExplain           = "explain"
	MethodExec              = "exec"
	MethodValueGet          = "value.get"
	MethodBlobGet           = "blob.get"
	MethodTaskList          = "task.list"
	MethodTaskGet           = "task.get"
	MethodTaskAwait         = "task.await"
	MethodTaskCancel        = "task.cancel"
	MethodTaskSuspend       = "task.suspend"
	MethodTaskResume        = "task.resume"
	MethodPlanGet           = "plan.get"
	MethodPlanList          = "plan.list"
	MethodPlanApply         = "plan.apply"
	MethodCapRequest        = "cap.request"
	MethodJournalQuery      = "journal.query"
	MethodPTYOpen           = "pty.open"
	MethodPTYSend           = "pty.send"
	MethodPTYRead           = "pty.read"
	MethodPTYResize         = "pty.resize"
	MethodPTYClose          = "pty.close"
	MethodPTYList           = "pty.list"
	MethodEventsRead        = "events.read"
	MethodEventsPublish     = "events.publish"
	MethodEventsSubscribe   = "events.subscribe"
	MethodEventsUnsubscribe = "events.unsubscribe"
	MethodEvent             = "event" // server-to-client event notification
	// MethodSessionDetached is the server-to-client notification that the
	// connection's attachment was cut (its token revoked or expired); a
	// kernel addition.
	MethodSessionDetached = "session.detached"
)

// PreAttachMethods are the methods served before session.attach; every
// other method answers CodeNotAttached.
var PreAttachMethods = []string{MethodSessionAttach, MethodParse, MethodComplete, MethodKernelInfo}

// AllowedBeforeAttach reports whether method may be called unattached.
func AllowedBeforeAttach(method string) bool {
	switch method {
	case MethodSessionAttach, MethodParse, MethodComplete, MethodKernelInfo:
		return true
	}
	return false
}
