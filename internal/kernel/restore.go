package kernel

import (
	"context"
	"time"

	"github.com/shoalgo/shoal/internal/eval"
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
	sess.dir, sess.env, sess.names = dir, env, viewFrom(bs)
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
		env = make([]string, len(f.Env))
		for i, kv := range f.Env {
			env[i] = string(kv)
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

// forgetRestartState deletes what a session closed for idleness kept for
// a restart: it is not restored.
func (s *Server) forgetRestartState(sess *session) {
	s.forgetTaskRecords(sess)
	if s.ckpts != nil {
		s.ckpts.put(sess.key, nil)
	}
}
