package lsp

// What a document version asks of the attached session: the names its
// diagnostics call unknown and the statements for the policy to judge,
// each with the declarations it uses.

import (
	"sort"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/lsp/protocol"
	"github.com/shoalgo/shoal/internal/syntax"
)

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
