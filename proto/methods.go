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
	MethodTaskOutput        = "task.output"
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

// Method is one entry of the method table: a kernel method's name,
// whether it is served before session.attach, and its params and result
// types, each a nil pointer of the type declared in this package (Params
// nil: the method takes an empty object).
type Method struct {
	Name string
	// PreAttach: served before session.attach; every other method answers
	// CodeNotAttached until the connection attaches.
	PreAttach bool
	Params    any
	Result    any
}

// methodTable is the one list of the kernel's methods: kernel.info's
// method list, the pre-attach gate, the kernel's dispatch table (which
// must hold a handler for each) and the client's typed calls all come
// from it, and a test checks the method list of docs/kernel.md against it.
// The pre-attach methods come first, in the order kernel.info reports them.
var methodTable = [...]Method{
	{MethodSessionAttach, true, (*AttachParams)(nil), (*AttachResult)(nil)},
	{MethodParse, true, (*ParseParams)(nil), (*ParseResult)(nil)},
	{MethodComplete, true, (*CompleteParams)(nil), (*CompleteResult)(nil)},
	{MethodKernelInfo, true, nil, (*KernelInfo)(nil)},

	{MethodSessionEnv, false, nil, (*EnvResult)(nil)},
	{MethodSessionReef, false, nil, (*ReefResult)(nil)},
	{MethodExplain, false, (*ExplainParams)(nil), (*ExplainResult)(nil)},
	{MethodExec, false, (*ExecParams)(nil), (*ExecResult)(nil)},
	{MethodValueGet, false, (*ValueGetParams)(nil), (*ValueGetResult)(nil)},
	{MethodBlobGet, false, (*BlobGetParams)(nil), (*BlobResult)(nil)},

	{MethodTaskList, false, nil, (*TaskList)(nil)},
	{MethodTaskGet, false, (*TaskParams)(nil), (*TaskRecord)(nil)},
	{MethodTaskAwait, false, (*TaskParams)(nil), (*TaskRecord)(nil)},
	{MethodTaskCancel, false, (*TaskParams)(nil), (*TaskRecord)(nil)},
	{MethodTaskSuspend, false, (*TaskParams)(nil), (*TaskRecord)(nil)},
	{MethodTaskResume, false, (*TaskParams)(nil), (*TaskRecord)(nil)},
	{MethodTaskOutput, false, (*TaskOutputParams)(nil), (*TaskOutputChunk)(nil)},

	{MethodPlanGet, false, (*PlanRefParams)(nil), (*PlanRecord)(nil)},
	{MethodPlanList, false, nil, (*PlanList)(nil)},
	{MethodPlanApply, false, (*PlanRefParams)(nil), (*ExecResult)(nil)},
	{MethodCapRequest, false, (*CapRequestParams)(nil), (*CapRequestResult)(nil)},
	{MethodJournalQuery, false, (*JournalQueryParams)(nil), (*[]JournalEntry)(nil)},

	{MethodPTYOpen, false, (*PTYOpenParams)(nil), (*PTYSummary)(nil)},
	{MethodPTYSend, false, (*PTYSendParams)(nil), (*PTYSent)(nil)},
	{MethodPTYRead, false, (*PTYReadParams)(nil), (*PTYScreen)(nil)},
	{MethodPTYResize, false, (*PTYResizeParams)(nil), (*PTYSummary)(nil)},
	{MethodPTYClose, false, (*PTYSelector)(nil), (*PTYClosed)(nil)},
	{MethodPTYList, false, nil, (*PTYList)(nil)},

	{MethodEventsRead, false, (*EventsParams)(nil), (*EventsReadResult)(nil)},
	{MethodEventsPublish, false, (*EventsParams)(nil), (*Published)(nil)},
	{MethodEventsSubscribe, false, (*EventsParams)(nil), (*Subscribed)(nil)},
	{MethodEventsUnsubscribe, false, (*EventsParams)(nil), (*Unsubscribed)(nil)},
}

// Methods returns the method table (a copy), pre-attach methods first.
func Methods() []Method { return append([]Method(nil), methodTable[:]...) }

// LookupMethod returns the table's entry for name.
func LookupMethod(name string) (Method, bool) {
	for _, m := range methodTable {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// PreAttachMethods returns the methods served before session.attach (the
// table's PreAttach entries, in its order); every other method answers
// CodeNotAttached. It is derived from the table at each call (kernel.info
// asks once a call), so the set has one place, and no package initialiser
// builds it at every start.
func PreAttachMethods() []string {
	var out []string
	for _, m := range methodTable {
		if m.PreAttach {
			out = append(out, m.Name)
		}
	}
	return out
}

// AllowedBeforeAttach reports whether method may be called unattached.
func AllowedBeforeAttach(method string) bool {
	m, ok := LookupMethod(method)
	return ok && m.PreAttach
}

// MethodInfo describes one method in kernel.info's method list.
type MethodInfo struct {
	Name           string `json:"name"`
	RequiresAttach bool   `json:"requires_attach"`
	Implemented    bool   `json:"implemented"`
}
