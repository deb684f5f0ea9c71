package kernel

import (
	"context"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

type envResult struct {
	Granted bool              `json:"granted"`
	Names   []string          `json:"names"`
	Env     map[string]string `json:"env,omitempty"`
}

// handleSessionEnv lists the session environment's names, sorted, and
// their values when the principal may read the environment (only the
// kernel owner until policy is enforced). Pairs that are not UTF-8 are
// left out.
func handleSessionEnv(_ context.Context, c *call) (any, error) {
	var p struct{}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	_, env := c.att.sess.snapshot()
	granted := c.att.principal == c.conn.srv.local
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
		if granted {
			res.Env[k] = v
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
