package kernel

import (
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// sessionLeashEnv is what plan derivation knows of sess: its directory,
// home, trash and bindings as of its latest exec. It is built once for
// them and kept until one changes (settle, enter), so an exec that binds
// nothing new derives its plan without rebuilding it.
func sessionLeashEnv(sess *session) leash.Env {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.leashEnv == nil {
		le := buildLeashEnv(sess, sess.names, sess.dir, sess.env)
		sess.leashEnv = &le
	}
	return *sess.leashEnv
}

// buildLeashEnv is the plan environment of sess for the name view, dir
// and env given; its closures keep their own copy of the view.
func buildLeashEnv(sess *session, view nameView, dir string, env []string) leash.Env {
	var adapter func(*syntax.CmdCall) (leash.Adapted, bool)
	var reg leash.Registry
	trash := eval.TrashRoot(env)
	if sess.interp != nil {
		// The registry is the server's, shared read-only.
		reg = sess.interp.Registry()
		trash = sess.interp.TrashRoot(env)
		// The catalog is fixed for the session's life: read without a turn.
		adapter = eval.AdapterDeriver(sess.interp.Adapters())
	}
	return leash.Env{
		Registry: reg,
		Adapter:  adapter,
		Dir:      dir,
		Home:     envValue(env, "HOME"),
		Trash:    trash,
		IsBound:  view.isBound,
		TypeOf:   view.typeOf,
		Function: func(name string) (*syntax.FnDecl, bool) {
			d, ok := view.fns[name]
			return d, ok
		},
		Alias: func(name string) (*syntax.CmdCall, bool) {
			a, ok := view.aliases[name]
			return a, ok
		},
	}
}

// sameBindings reports whether bindings b would give the same name view
// as a (viewFrom) for certain: the same names in the same order, each
// callable or not alike, the same function or alias object, and a value
// of the same kind. A record is never the same (the view keeps its field
// names, which are not compared), so a session binding one rebuilds its
// view after every exec, as all did before.
func sameBindings(a, b []eval.Binding) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Name != y.Name || x.Callable != y.Callable || !sameBound(x.Value, y.Value) {
			return false
		}
	}
	return true
}

// sameBound is sameBindings' test of one value: what the view keeps of it.
func sameBound(a, b value.Value) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case *eval.Closure:
		y, ok := b.(*eval.Closure)
		return ok && x == y
	case *eval.CmdRef:
		y, ok := b.(*eval.CmdRef)
		return ok && x == y
	case *value.Record:
		return false
	}
	if b == nil {
		return false
	}
	if _, rec := b.(*value.Record); rec {
		return false
	}
	switch b.(type) {
	case *eval.Closure, *eval.CmdRef:
		return false
	}
	return a.Kind() == b.Kind()
}
