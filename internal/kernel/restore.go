package kernel

import (
	"context"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// restoreWait bounds how long entering a restored session's directory may
// take (its gate's check and a stat).
const restoreWait = 5 * time.Second

// restoreSession gives a session just made what an earlier kernel kept of
// its (principal, name): its task records (taskstore.go) and its
// checkpoint (checkpoint.go), and starts checkpointing it.
func (s *Server) restoreSession(sess *session) {
	s.restoreTasks(sess)
	if s.ckpts == nil {
		return
	}
	limit := s.limits.CheckpointBytes
	if f := s.ckpts.read(sess.key, limit); f != nil {
		sess.restored = s.applyCheckpoint(sess, f)
	}
	dir, env := sess.interp.Dir(), sess.interp.Environ()
	bs := sess.interp.Bindings()
	sess.mu.Lock()
	sess.dir, sess.env, sess.names, sess.bound, sess.leashEnv = dir, env, viewFrom(bs), bs, nil
	sess.mu.Unlock()
	sess.ckpt = &checkpointer{store: s.ckpts, limit: limit}
	sess.ckpt.build(dir, env, bs) // the state as it starts is its first checkpoint's
}

// applyCheckpoint puts f's environment, bindings and directory back into
// sess and says what came back.
func (s *Server) applyCheckpoint(sess *session, f *checkpointFile) *proto.Restored {
	res := &proto.Restored{Dropped: append([]string{}, f.Dropped...)}
	var env []string
	if f.Env != nil {
		var st *gateState
		if g := sess.gate(); g != nil {
			st = g.current()
		}
		env = make([]string, 0, len(f.Env))
		for _, kv := range f.Env {
			if name, ok := envRestorable(st, string(kv)); !ok {
				res.Dropped = append(res.Dropped, "env."+name)
				continue
			}
			env = append(env, string(kv))
		}
	}
	binds := make([]eval.Binding, 0, len(f.Bindings))
	for _, b := range f.Bindings {
		v, err := value.FromWire(b.Value)
		if err != nil {
			res.Dropped = append(res.Dropped, b.Name)
			continue
		}
		binds = append(binds, eval.Binding{Name: b.Name, Value: v, Mutable: b.Mutable})
	}
	refused := sess.interp.Restore(env, binds)
	res.Bindings = len(binds) - len(refused)
	res.Dropped = append(res.Dropped, refused...)
	if dir := string(f.Dir); dir != "" && dir != sess.interp.Dir() {
		ctx, cancel := context.WithTimeout(s.ctx, restoreWait)
		err := sess.interp.Enter(ctx, dir)
		cancel()
		if err != nil {
			s.log.Info("restored session stays in its start directory", "session", sess.key.name, "err", err)
		}
	}
	return res
}

// envRestorable reports whether the checkpointed variable kv may come back
// under the grants in force now (st; nil: a session without a gate): the
// principal may still read it or may still set it, so a policy narrowed
// across the restart withholds what it withholds from a new session.
func envRestorable(st *gateState, kv string) (name string, ok bool) {
	name, _, _ = strings.Cut(kv, "=")
	if st == nil || st.free {
		return name, true
	}
	return name, name != "" && (st.grants.Allows(host.EnvRead, name) || st.grants.Allows(host.EnvWrite, name))
}

// forgetRestartState deletes what a session closed for idleness kept for
// a restart: it is not restored.
func (s *Server) forgetRestartState(sess *session) {
	s.forgetTaskRecords(sess)
	if s.ckpts != nil {
		s.ckpts.put(sess.key, nil)
	}
}
