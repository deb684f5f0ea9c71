package kernel

import (
	"context"
	"sort"

	"github.com/shoalgo/shoal/proto"
)

// method is the kernel's half of one entry of proto's method table: how
// it is scheduled and handled.
type method struct {
	// needsAttach: the method answers NOT_ATTACHED before session.attach;
	// set from proto's method table, never here.
	needsAttach bool
	// inline: run on the connection's reader, so that the requests of a
	// connection take effect in the order it sent them: later requests
	// see the effect of this one, and inline requests take effect in
	// order among themselves (two publishes get their seqs in request
	// order). Only a handler that never waits on other work may be
	// inline: while it runs, the connection reads nothing (a task.cancel
	// for a running exec must still be read).
	inline bool
	// source: the method works on a source (parse, explain). It runs on
	// the reader, holding a source slot, when one is free, and otherwise
	// on its own goroutine, waiting for one (sourcework.go).
	source bool
	// armsWaits: the handler arms the hand-over timer for HandoffDelay
	// itself before it waits (lead.go, leadWait), so the request starts
	// with only the fallback armed; every other method that leads wants
	// the timer HandoffDelay from its start.
	armsWaits bool
	// prepare, when set, runs on the reader before the handler is
	// scheduled, to reserve the request's place in its session's order.
	prepare func(*call)
	// handle answers the request; nil means not implemented yet.
	handle func(context.Context, *call) (any, error)
}

// methods is the kernel's dispatch table: proto's method table (the one
// list of methods, with whether each is served before attach) joined with
// each method's scheduling and handler here. Every method of proto's table
// has an entry and no other method does (init panics otherwise, so any
// test catches it). A method without a handler is a contract method still
// to be built: it answers NOT_ATTACHED before attach like every other
// guarded method, and METHOD_NOT_FOUND after.
var methods map[string]*method

func init() {
	handlers := map[string]*method{
		proto.MethodKernelInfo:    {handle: handleKernelInfo},
		proto.MethodSessionAttach: {inline: true, handle: handleAttach},
		proto.MethodParse:         {source: true, handle: handleParse},
		proto.MethodComplete:      {handle: handleComplete},
		proto.MethodExplain:       {source: true, handle: handleExplain},

		proto.MethodExec:        {prepare: enterTurn, armsWaits: true, handle: handleExec},
		proto.MethodValueGet:    {handle: handleValueGet},
		proto.MethodSessionEnv:  {handle: handleSessionEnv},
		proto.MethodSessionReef: {handle: handleSessionReef},

		proto.MethodTaskList:    {inline: true, handle: handleTaskList},
		proto.MethodTaskGet:     {inline: true, handle: handleTaskGet},
		proto.MethodTaskAwait:   {handle: handleTaskAwait},
		proto.MethodTaskCancel:  {inline: true, handle: handleTaskCancel},
		proto.MethodTaskSuspend: {inline: true, handle: handleTaskSuspend},
		proto.MethodTaskResume:  {inline: true, handle: handleTaskResume},
		proto.MethodTaskOutput:  {handle: handleTaskOutput},

		proto.MethodPlanGet:    {handle: handlePlanGet},
		proto.MethodPlanApply:  {prepare: enterTurn, handle: handlePlanApply},
		proto.MethodPlanList:   {handle: handlePlanList},
		proto.MethodCapRequest: {handle: handleCapRequest},

		proto.MethodJournalQuery: {handle: handleJournalQuery},
		proto.MethodBlobGet:      {handle: handleBlobGet},

		proto.MethodEventsRead:        {inline: true, handle: handleEventsRead},
		proto.MethodEventsPublish:     {inline: true, handle: handleEventsPublish},
		proto.MethodEventsSubscribe:   {inline: true, handle: handleEventsSubscribe},
		proto.MethodEventsUnsubscribe: {inline: true, handle: handleEventsUnsubscribe},

		// PTYs (ptys.go). open, send, read (which may wait) and close (which
		// waits for the reap) run on their own goroutines.
		proto.MethodPTYOpen:   {handle: handlePTYOpen},
		proto.MethodPTYSend:   {handle: handlePTYSend},
		proto.MethodPTYRead:   {handle: handlePTYRead},
		proto.MethodPTYResize: {inline: true, handle: handlePTYResize},
		proto.MethodPTYClose:  {handle: handlePTYClose},
		proto.MethodPTYList:   {inline: true, handle: handlePTYList},
	}
	methods = make(map[string]*method, len(handlers))
	for _, pm := range proto.Methods() {
		m, ok := handlers[pm.Name]
		if !ok {
			panic("kernel: no dispatch entry for " + pm.Name)
		}
		m.needsAttach = !pm.PreAttach
		methods[pm.Name] = m
		delete(handlers, pm.Name)
	}
	for name := range handlers {
		panic("kernel: " + name + " is not in proto's method table")
	}
}

// Methods lists the method table for kernel.info, sorted by name.
func Methods() []proto.MethodInfo {
	out := make([]proto.MethodInfo, 0, len(methods))
	for name, m := range methods {
		out = append(out, proto.MethodInfo{Name: name, RequiresAttach: m.needsAttach, Implemented: m.handle != nil})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
