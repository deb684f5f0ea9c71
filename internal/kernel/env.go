package kernel

import (
	"context"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/host"
)

type envResult struct {
	Granted bool              `json:"granted"`
	Names   []string          `json:"names"`
	Env     map[string]string `json:"env,omitempty"`
}

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

type reefResult struct {
	ActiveScope string        `json:"active_scope"`
	Bindings    []reefBinding `json:"bindings"`
}

// handleSessionReef reports the session's tool bindings: a cached snapshot
// of the programs it resolved through the system provider (PATH), with a
// version only when the install path names one. Nothing is run or
// resolved afresh.
func handleSessionReef(_ context.Context, c *call) (any, error) {
	var p struct{}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	dir, _ := c.att.sess.snapshot()
	return &reefResult{ActiveScope: toValidUTF8(dir), Bindings: c.att.sess.tools.list()}, nil
}
