package lsp

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/lsp/protocol"
)

// Diagnostic codes of attached mode.
const (
	codePolicyDenied   = "policy_denied"
	codePolicyApproval = "policy_approval"
)

// attachedState is what attached mode learns from the session, and the
// worker that learns it. The server loop publishes each version at once
// from what is cached (the session's names, the policy's verdicts by
// statement text) and hands the rest to one worker goroutine, which asks
// the kernel off the loop and publishes the version again once it knows
// more, unless a newer version was published meanwhile. So typing never
// waits on the kernel, and a statement is explained once however often
// the document around it changes.
type attachedState struct {
	srv *Server
	k   *guardedKernel

	mu       sync.Mutex
	verdicts *lru[Verdict]      // by explained source
	names    *lru[sessionName]  // by name
	latest   map[string]int32   // the version of each open document last published
	jobs     map[string]*attJob // the newest unfinished job of each document
	running  bool               // the worker is running

	pure *lru[bool] // by statement text; the loop's alone
}

// sessionName is what the session binds a name to, as its completion
// says.
type sessionName struct {
	bound  bool
	detail string
}

// attJob is one published version: the document's own diagnostics, the
// names they call unknown and the statements to judge.
type attJob struct {
	uri     string
	version int32
	local   []protocol.Diagnostic
	names   []nameCheck
	stmts   []stmtCheck
}

type nameCheck struct {
	diag    int // index into local
	name    string
	command bool
}

type stmtCheck struct {
	key string // what is explained: the statement after the declarations it uses
	rng protocol.Range
}

func newAttachedState(s *Server, k Kernel) *attachedState {
	a := &attachedState{
		srv:      s,
		verdicts: newLRU[Verdict](MaxAttachedVerdicts, MaxAttachedCacheBytes),
		names:    newLRU[sessionName](MaxAttachedNames, MaxAttachedCacheBytes),
		pure:     newLRU[bool](MaxAttachedVerdicts, MaxAttachedCacheBytes),
		latest:   map[string]int32{},
		jobs:     map[string]*attJob{},
	}
	a.k = &guardedKernel{k: k, onDown: a.forgetSession}
	return a
}

// forgetSession drops what was learnt from a kernel that stopped
// answering: until it answers again the server is unattached.
func (a *attachedState) forgetSession() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.verdicts.clear()
	a.names.clear()
	clear(a.jobs)
}

// forget stops publishing for a closed document.
func (a *attachedState) forget(uri string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.latest, uri)
	delete(a.jobs, uri)
}

// publish sends d's diagnostics: local, less the names the session binds,
// plus the policy's verdicts on its statements, from what is known now;
// the rest is asked off the loop.
func (a *attachedState) publish(d *document, local []protocol.Diagnostic) {
	job := a.jobFor(d, local)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.latest[d.uri] = d.version
	diags, missing := a.assemble(job)
	a.send(job, diags)
	if !missing || !a.k.usable() {
		delete(a.jobs, d.uri)
		return
	}
	a.jobs[d.uri] = job
	if !a.running {
		a.running = true
		go a.work()
	}
}

// send publishes job's version; a.mu is held, so a newer version the loop
// publishes is never overtaken.
func (a *attachedState) send(job *attJob, diags []protocol.Diagnostic) {
	v := job.version
	a.srv.send(protocol.Notification{JSONRPC: "2.0", Method: "textDocument/publishDiagnostics",
		Params: protocol.PublishDiagnosticsParams{URI: job.uri, Version: &v, Diagnostics: diags}})
}

// fresh reports an answer learnt recently enough to use without asking
// again.
func fresh(at time.Time) bool { return time.Since(at) < AttachedRefresh }

// assemble is job's diagnostics from what is cached, and whether anything
// is missing or stale; a.mu is held. With the kernel down it is the local
// diagnostics alone.
func (a *attachedState) assemble(job *attJob) ([]protocol.Diagnostic, bool) {
	if !a.k.usable() {
		return job.local, false
	}
	missing := false
	drop := map[int]bool{}
	for _, n := range job.names {
		sn, at, ok := a.names.get(n.name)
		if !ok || !fresh(at) {
			missing = true
		}
		if ok && sn.bound {
			drop[n.diag] = true
		}
	}
	out := make([]protocol.Diagnostic, 0, len(job.local))
	for i, diag := range job.local {
		if !drop[i] {
			out = append(out, diag)
		}
	}
	for _, st := range job.stmts {
		v, at, ok := a.verdicts.get(st.key)
		if !ok || !fresh(at) {
			missing = true
		}
		if ok && len(out) < MaxDiagnostics {
			if diag, bad := verdictDiagnostic(st.rng, v); bad {
				out = append(out, diag)
			}
		}
	}
	return out, missing
}

// verdictDiagnostic is the diagnostic for a statement the policy refuses
// (an error) or holds for approval (a warning); bad is false for one it
// allows.
func verdictDiagnostic(rng protocol.Range, v Verdict) (protocol.Diagnostic, bool) {
	why := ""
	if len(v.Reasons) > 0 {
		why = ": " + strings.Join(v.Reasons, "; ")
	}
	switch v.Verdict {
	case "deny":
		return protocol.Diagnostic{Range: rng, Severity: protocol.SeverityError, Code: codePolicyDenied, Source: "shoal",
			Message: "the session's policy refuses this statement" + why}, true
	case "approval_required":
		return protocol.Diagnostic{Range: rng, Severity: protocol.SeverityWarning, Code: codePolicyApproval, Source: "shoal",
			Message: "this statement needs approval under the session's policy" + why}, true
	}
	return protocol.Diagnostic{}, false
}

// work runs jobs until none is left. A panic in it is logged and ends
// the worker; the next publish starts another.
func (a *attachedState) work() {
	defer func() {
		if r := recover(); r != nil {
			a.mu.Lock()
			a.running = false
			clear(a.jobs)
			a.mu.Unlock()
			a.srv.logf("attached diagnostics failed: %v", r)
		}
	}()
	for {
		a.mu.Lock()
		var job *attJob
		for uri, j := range a.jobs {
			job = j
			delete(a.jobs, uri)
			break
		}
		if job == nil {
			a.running = false
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
		a.run(job)
	}
}

// current reports whether job is still the document's newest version with
// nothing newer waiting.
func (a *attachedState) current(job *attJob) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, newer := a.jobs[job.uri]
	v, open := a.latest[job.uri]
	return open && !newer && v == job.version
}

// run asks the kernel what job is missing, publishing again every
// AttachedFlushEvery answers and at the end; it stops early when a newer
// version supersedes job (whose answers the newer one reuses) or the
// kernel fails.
func (a *attachedState) run(job *attJob) {
	ctx := context.Background()
	asked := 0
	flush := func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if v, open := a.latest[job.uri]; open && v == job.version {
			diags, _ := a.assemble(job)
			a.send(job, diags)
		}
	}
	for _, n := range job.names {
		if !a.current(job) {
			return
		}
		if a.known(func() (time.Time, bool) { _, at, ok := a.names.get(n.name); return at, ok }) {
			continue
		}
		cands, err := a.k.Complete(ctx, n.name, len(n.name))
		if err != nil {
			flush()
			return
		}
		sn := bindingOf(cands, n.name, n.command)
		a.mu.Lock()
		a.names.put(n.name, sn, time.Now())
		a.mu.Unlock()
		if asked++; asked%AttachedFlushEvery == 0 {
			flush()
		}
	}
	for _, st := range job.stmts {
		if !a.current(job) {
			return
		}
		if a.known(func() (time.Time, bool) { _, at, ok := a.verdicts.get(st.key); return at, ok }) {
			continue
		}
		v, err := a.k.verdict(ctx, st.key)
		if err != nil {
			flush()
			return
		}
		a.mu.Lock()
		a.verdicts.put(st.key, v, time.Now())
		a.mu.Unlock()
		if asked++; asked%AttachedFlushEvery == 0 {
			flush()
		}
	}
	flush()
}

// known reports, under a.mu, a fresh cached answer.
func (a *attachedState) known(get func() (time.Time, bool)) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	at, ok := get()
	return ok && fresh(at)
}

// bindingOf reads the session's completion of name: bound when it offers
// name itself as a variable or function (a command head: a function or
// alias).
func bindingOf(cands []complete.Candidate, name string, command bool) sessionName {
	for _, c := range cands {
		if c.Label != name {
			continue
		}
		if c.Kind == complete.KindFunction || (!command && c.Kind == complete.KindVariable) {
			return sessionName{bound: true, detail: c.Detail}
		}
	}
	return sessionName{}
}
