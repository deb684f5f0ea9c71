package policy

import (
	"context"
	"slices"

	"github.com/shoalgo/shoal/internal/host"
)

// Authorizer returns the runtime gate for these grants: every concrete
// host.Op a program asks for while it runs is checked against the same
// grants Decide uses, whatever asked (a top-level statement, a function,
// a closure, a task, an on handler, an interpreter block: they all share
// the session's Host). For fs ops both Target and the symlink-resolved
// op.Real (when the host filled it in) must be granted, so a symlink inside
// a grant that points outside is refused, as is a path with ".." or any
// other non-normalised text; an op on a whole tree (op.Tree: a recursive
// remove or copy of a directory) needs a grant ending in `**` that covers
// everything beneath it. A proc_spawn op is judged on its program path
// (Target) and its resolved target. There is no approval at run time:
// auto_apply and opaque shape plan verdicts only; an op is allowed or
// refused with a *host.DeniedError.
//
// Grants that allow every op a host can ask (fs "/**" for read, write and
// delete, proc_spawn "*", env_read "*", sys_read "*", secret_use "*",
// time, and a "*:*" net grant; the kernel owner's default) get host.AllowAll, which spares
// the host resolving paths nobody would judge.
func (g *Grants) Authorizer() host.Authorizer {
	if g.allowsEveryOp() {
		return host.AllowAll
	}
	return gate{g}
}

// allowsEveryOp reports whether no host op could be refused.
func (g *Grants) allowsEveryOp() bool {
	if g == nil || !g.Defined || !g.Time {
		return false
	}
	anyNet := slices.ContainsFunc(g.NetConnect, func(n NetGrant) bool { return n.Host == "*" && n.AnyPort })
	return everywhere(g.FSRead) && everywhere(g.FSWrite) && everywhere(g.FSDelete) && anyNet &&
		slices.Contains(g.ProcSpawn, "*") && slices.Contains(g.EnvRead, "*") && slices.Contains(g.SysRead, "*") &&
		slices.Contains(g.SecretUse, "*")
}

// AllowsEveryPlan reports whether g allows every effect of every kind and
// runs every plan inside it without approval (auto_apply "in-grant",
// opaque "allow"), so that judging a plan could never refuse anything: the
// kernel owner's grants without a policy entry. Callers may then skip
// deriving plans; the gate still stands (and is host.AllowAll).
func (g *Grants) AllowsEveryPlan() bool {
	if !g.allowsEveryOp() || g.AutoApply != AutoInGrant || g.Opaque != OpaqueAllow {
		return false
	}
	all := func(names []string) bool { return slices.Contains(names, "*") }
	return g.NetListenAny && all(g.EnvWrite) && all(g.SecretUse) && g.SessionWrite && g.JournalRead
}

// everywhere reports whether globs hold "/**".
func everywhere(globs []Glob) bool {
	return slices.ContainsFunc(globs, func(gl Glob) bool { return len(gl.segs) == 1 && gl.segs[0] == "**" })
}

type gate struct{ g *Grants }

func (a gate) Authorize(ctx context.Context, op host.Op) error {
	if ok, why := a.g.allowOp(op, host.IsTrashMove(ctx)); !ok {
		return host.Denied(op, why)
	}
	return nil
}

// allowOp judges one concrete op; trashMove says its context carries one
// of rm's or undo's moves into or out of the kernel's trash (see
// WithTrash).
func (g *Grants) allowOp(op host.Op, trashMove bool) (bool, string) {
	if g == nil || !g.Defined {
		return false, "no policy for this principal"
	}
	switch op.Effect {
	case host.FSRead, host.FSWrite, host.FSDelete:
		if !normalised(op.Target) {
			return false, "path is not absolute and normalised"
		}
		if trashMove && g.inTrash(op.Target) && (op.Real == "" || g.inTrash(op.Real)) {
			return true, ""
		}
		// The plain check first: a path outside every grant gets the
		// same answer whether or not it is a directory.
		if !g.allowsPath(op.Effect, op.Target) {
			return false, grantName(op.Effect)
		}
		if !g.fsAllows(op.Effect, op.Target, op.Tree) {
			return false, grantName(op.Effect) + treeNote(op.Tree)
		}
		if op.Real != "" && op.Real != op.Target && !g.fsAllows(op.Effect, op.Real, op.Tree) {
			return false, grantName(op.Effect) + treeNote(op.Tree) + " the resolved path " + op.Real
		}
		return true, ""
	case host.ProcSpawn:
		if !normalised(op.Target) {
			return false, "program path is not absolute and normalised"
		}
		if !g.spawnAllowed(op.Target, op.Real) {
			return false, grantName(op.Effect)
		}
		return true, ""
	case host.Clock, SessionWrite, JournalRead:
		if !g.Allows(op.Effect, "") {
			return false, grantName(op.Effect)
		}
		return true, ""
	}
	if op.Target == "" {
		return false, "operation without a subject"
	}
	if !g.Allows(op.Effect, op.Target) {
		return false, grantName(op.Effect)
	}
	return true, ""
}

// fsAllows is Allows for an fs op; a Tree op needs a grant that covers the
// whole tree beneath p (Glob.Covers).
func (g *Grants) fsAllows(effect host.Effect, p string, tree bool) bool {
	if !tree {
		return g.allowsPath(effect, p)
	}
	var globs []Glob
	switch effect {
	case host.FSRead:
		globs = g.FSRead
	case host.FSWrite:
		globs = g.FSWrite
	case host.FSDelete:
		globs = g.FSDelete
	}
	if !normalised(p) {
		return false
	}
	for _, gl := range globs {
		if gl.Covers(p) {
			return true
		}
	}
	return false
}

func treeNote(tree bool) string {
	if tree {
		return " the whole tree beneath"
	}
	return ""
}
