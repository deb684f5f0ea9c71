package kernel

import (
	"context"
	"sort"

	"github.com/shoalgo/shoal/proto"
)

// method is one entry of the method table.
type method struct {
	// needsAttach: the method answers NOT_ATTACHED before session.attach.
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
	// prepare, when set, runs on the reader before the handler is
	// scheduled, to reserve the request's place in its session's order.
	prepare func(*call)
	// handle answers the request; nil means not implemented yet.
	handle func(context.Context, *call) (any, error)
}

// methods is the single place declaring every method the kernel knows, its
// handler and whether it needs attachment. Methods without a handler are
// contract methods still to be built: they answer NOT_ATTACHED before
// attach like every other guarded method, and METHOD_NOT_FOUND after.
var methods map[string]*method

func init() {
	methods = map[string]*method{
		proto.MethodKernelInfo:    {handle: handleKernelInfo},
		proto.MethodSessionAttach: {inline: true, handle: handleAttach},
		proto.MethodParse:         {source: true, handle: handleParse},
		proto.MethodComplete:      {handle: handleComplete},
		proto.MethodExplain:       {needsAttach: true, source: true, handle: handleExplain},

		proto.MethodExec:        {needsAttach: true, prepare: enterTurn, handle: handleExec},
		proto.MethodValueGet:    {needsAttach: true, handle: handleValueGet},
		proto.MethodSessionEnv:  {needsAttach: true, handle: handleSessionEnv},
		proto.MethodSessionReef: {needsAttach: true, handle: handleSessionReef},

		proto.MethodTaskList:    {needsAttach: true, inline: true, handle: handleTaskList},
		proto.MethodTaskGet:     {needsAttach: true, inline: true, handle: handleTaskGet},
		proto.MethodTaskAwait:   {needsAttach: true, handle: handleTaskAwait},
		proto.MethodTaskCancel:  {needsAttach: true, inline: true, handle: handleTaskCancel},
		proto.MethodTaskSuspend: {needsAttach: true, inline: true, handle: handleTaskSuspend},
		proto.MethodTaskResume:  {needsAttach: true, inline: true, handle: handleTaskResume},

		proto.MethodPlanGet:    {needsAttach: true, handle: handlePlanGet},
		proto.MethodPlanApply:  {needsAttach: true, prepare: enterTurn, handle: handlePlanApply},
		proto.MethodPlanList:   {needsAttach: true, handle: handlePlanList},
		proto.MethodCapRequest: {needsAttach: true, handle: handleCapRequest},

		proto.MethodJournalQuery: {needsAttach: true, handle: handleJournalQuery},
		proto.MethodBlobGet:      {needsAttach: true, handle: handleBlobGet},

		proto.MethodEventsRead:        {needsAttach: true, inline: true, handle: handleEventsRead},
		proto.MethodEventsPublish:     {needsAttach: true, inline: true, handle: handleEventsPublish},
		proto.MethodEventsSubscribe:   {needsAttach: true, inline: true, handle: handleEventsSubscribe},
		proto.MethodEventsUnsubscribe: {needsAttach: true, inline: true, handle: handleEventsUnsubscribe},

		// PTYs (ptys.go). open, send, read (which may wait) and close (which
		// waits for the reap) run on their own goroutines.
		proto.MethodPTYOpen:   {needsAttach: true, handle: handlePTYOpen},
		proto.MethodPTYSend:   {needsAttach: true, handle: handlePTYSend},
		proto.MethodPTYRead:   {needsAttach: true, handle: handlePTYRead},
		proto.MethodPTYResize: {needsAttach: true, inline: true, handle: handlePTYResize},
		proto.MethodPTYClose:  {needsAttach: true, handle: handlePTYClose},
		proto.MethodPTYList:   {needsAttach: true, inline: true, handle: handlePTYList},
	}
}

// MethodInfo describes one method for kernel.info.
type MethodInfo struct {
	Name          string `json:"name"`
	RequireAttach bool   `json:"requires_attach"`
	Implemented   bool   `json:"implemented"`
}

// Methods lists the method table, sorted by name.
func Methods() []MethodInfo {
	out := make([]MethodInfo, 0, len(methods))
	for name, m := range methods {
		out = append(out, MethodInfo{Name: name, RequireAttach: m.needsAttach, Implemented: m.handle != nil})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
