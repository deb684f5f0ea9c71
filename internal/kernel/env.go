package kernel

import (
	"context"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/proto"
)

type envResult = proto.EnvResult

// handleSessionEnv lists the names of the session's variables, sorted:
// those its environment holds and those of the kernel's environment its
// grants withheld from it (grants.go, sessionEnv). A principal with
// env_read grants (granted: true) also gets the values of the variables
// they let it read; one without gets the names alone. Pairs that are not
// UTF-8 are left out.
func handleSessionEnv(_ context.Context, c *call) (any, error) {
	var p struct{}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	sess := c.att.sess
	_, env := sess.snapshot()
	var st *gateState
	if g := sess.gate(); g != nil {
		st = g.current()
	}
	granted := st != nil && (st.free || len(st.grants.EnvRead) > 0)
	res := &envResult{Granted: granted, Names: []string{}}
	if granted {
		res.Env = map[string]string{}
	}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || !utf8.ValidString(k) || !utf8.ValidString(v) {
			continue
		}
		res.Names = append(res.Names, k)
		if granted && (st.free || st.grants.Allows(host.EnvRead, k)) {
			res.Env[k] = v
		}
	}
	for _, k := range sess.withheld() {
		if utf8.ValidString(k) {
			res.Names = append(res.Names, k)
		}
	}
	sort.Strings(res.Names)
	res.Names = slices.Compact(res.Names)
	return res, nil
}

type reefResult = proto.ReefResult

// handleSessionReef reports the session's tool bindings: every tool the
// manifests in scope of its directory constrain, as the session would
// bind it now (its lock entry, or the candidate Reef would pick; the
// evaluator caches the report until a manifest or the lock changes), then
// the programs it resolved through PATH that no manifest constrains.
// Nothing is run or written.
func handleSessionReef(ctx context.Context, c *call) (any, error) {
	var p struct{}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	sess := c.att.sess
	dir, env := sess.snapshot()
	res := &reefResult{ActiveScope: toValidUTF8(dir), Bindings: []reefBinding{}}
	constrained := map[string]bool{}
	if sess.interp != nil {
		rep := sess.interp.ReefBindings(ctx, dir, env)
		for _, w := range rep.Warnings {
			res.Warnings = append(res.Warnings, toValidUTF8(w))
		}
		for _, b := range rep.Bindings {
			constrained[b.Tool] = true
			res.Bindings = append(res.Bindings, reefBinding{Tool: toValidUTF8(b.Tool), Version: b.Version, Provider: b.Provider,
				Path: toValidUTF8(b.Path), Scope: b.Scope, Constrained: true, Constraint: toValidUTF8(b.Constraint),
				Hash8: b.Hash8, Error: b.Error})
		}
	}
	for _, b := range sess.tools.list() {
		if !constrained[b.Tool] {
			res.Bindings = append(res.Bindings, b)
		}
	}
	return res, nil
}
