package lsp

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/complete"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/lsp/protocol"
	"github.com/shoalgo/shoal/internal/syntax"
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

// jobFor lists, on the server loop, what d's version asks of the session:
// the unknown names of its local diagnostics, and each top-level
// statement (at most MaxJudgedStatements, each at most MaxExplainSource)
// that may have effects, with the top-level declarations it uses.
func (a *attachedState) jobFor(d *document, local []protocol.Diagnostic) *attJob {
	job := &attJob{uri: d.uri, version: d.version, local: local}
	if !a.k.usable() {
		return job
	}
	for i, diag := range local {
		if diag.Code != codeUnknownName && diag.Code != codeUnknownCommand {
			continue
		}
		start, end := d.offset(diag.Range.Start), d.offset(diag.Range.End)
		if start < end && end-start <= MaxExplainSource {
			job.names = append(job.names, nameCheck{diag: i, name: d.text[start:end], command: diag.Code == codeUnknownCommand})
		}
	}
	if !a.k.policyAware() || d.tooBig {
		return job
	}
	an := d.analysis()
	if an.prog == nil {
		return job
	}
	env := leash.Env{Registry: a.srv.opts.Registry, Dir: dirOf(d.uri), Home: a.srv.opts.Home}
	for i, st := range an.prog.Stmts {
		if i >= MaxJudgedStatements {
			break
		}
		sp := st.Pos()
		start, end := int(sp.Start), int(sp.End)
		if end-start > MaxExplainSource || a.pureStmt(an.idx, start, end, env) {
			continue
		}
		src := d.text[start:end]
		if decls := a.declsUsed(d, an.idx, start, end, env); decls != "" && len(decls)+len(src) <= MaxExplainSource {
			src = decls + src
		}
		job.stmts = append(job.stmts, stmtCheck{key: src, rng: d.rangeOf(start, end)})
	}
	return job
}

// pureStmt reports a statement that needs no verdict: derived here it
// has no effects and is not opaque, and every name it uses the document
// declares (a name it does not may be the session's function).
func (a *attachedState) pureStmt(ix *index, start, end int, env leash.Env) bool {
	for _, r := range refsIn(ix, start, end) {
		if r.def < 0 {
			return false
		}
	}
	return a.pureText(ix.src[start:end], env)
}

// pureText reports a source that derives no effects and is not opaque,
// cached by text.
func (a *attachedState) pureText(src string, env leash.Env) bool {
	if p, _, ok := a.pure.get(src); ok {
		return p
	}
	prog, err := syntax.Parse(src, syntax.ParseOptions{})
	p := false
	if err == nil {
		plan := leash.Derive(prog, env)
		p = len(plan.Effects) == 0 && !plan.Opaque
	}
	a.pure.put(src, p, time.Now())
	return p
}

// refsIn are the uses inside [start, end) (refs are in source order).
func refsIn(ix *index, start, end int) []ref {
	lo := sort.Search(len(ix.refs), func(i int) bool { return ix.refs[i].start >= start })
	hi := lo
	for hi < len(ix.refs) && ix.refs[hi].start < end {
		hi++
	}
	return ix.refs[lo:hi]
}

// declsUsed is the source of the top-level declarations the statement in
// [start, end) uses, and those they use in turn, in document order, each
// on its line: functions and aliases wherever they are, `let`s and `var`s
// before the statement whose own source has no effects (so the verdict is
// the statement's alone). At most MaxContextDecls of them.
func (a *attachedState) declsUsed(d *document, ix *index, start, end int, env leash.Env) string {
	seen := map[int]bool{}
	var spans [][2]int
	work := [][2]int{{start, end}}
	for len(work) > 0 && len(spans) < MaxContextDecls {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		for _, r := range refsIn(ix, w[0], w[1]) {
			if r.def < 0 || seen[r.def] || len(spans) >= MaxContextDecls {
				continue
			}
			seen[r.def] = true
			df := ix.defs[r.def]
			ns, ne := int(df.node.Start), int(df.node.End)
			if !df.top || (ns >= start && ne <= end) {
				continue
			}
			switch df.kind {
			case defFn, defAlias:
			case defLet, defVar:
				if ne > start || !a.pureText(d.text[ns:ne], env) {
					continue
				}
			default:
				continue
			}
			spans = append(spans, [2]int{ns, ne})
			work = append(work, [2]int{ns, ne})
		}
	}
	if len(spans) == 0 {
		return ""
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	var b strings.Builder
	for _, sp := range spans {
		b.WriteString(d.text[sp[0]:sp[1]])
		b.WriteByte('\n')
	}
	return b.String()
}
