package kernel

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/tasks"
)

// Session lifecycle. A session is created by the first attach to its
// (principal, name) and lives while something holds it: a connection
// attached to it or subscribed to one of its channels, a request in flight
// on it, or a running task. When nothing has held it for Limits.SessionIdle
// it is closed: the registry forgets it (so the next attach to the name
// gets a fresh session, and says so with created: true) and close releases
// what it kept, through one path that later budgets hook into (onClose).
//
// Sessions are counted per principal (Limits.SessionsPerPrincipal), all
// token principals together (Limits.TokenSessions), and the kernel owner
// apart (Limits.OwnerSessions), so other principals can never use up the
// owner's room. A session counts from its creation until its close has
// finished (registry.closed), not only until it is reaped.

// lifecycle is the part of a session that decides when it may close.
type lifecycle struct {
	mu        sync.Mutex
	holds     int       // connections attached or subscribed, requests in flight
	idleSince time.Time // when it was last seen unheld with no task running; zero while busy
	closed    bool      // closed: no new holds; the registry has forgotten it
	onClose   []func()  // release hooks, run once by close, newest first
}

// acquire adds a hold; it reports false once the session is closed.
func (s *session) acquire() bool {
	l := &s.life
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.holds++
	l.idleSince = time.Time{}
	return true
}

// release drops a hold taken by acquire.
func (s *session) release() {
	l := &s.life
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.holds--; l.holds == 0 {
		l.idleSince = time.Now()
	}
}

// onClose registers fn to run when the session closes: it is the place to
// give back whatever a session keeps (budgets, scopes, streams). Hooks run
// once, newest first, after the transcript and tasks are released.
func (s *session) onClose(fn func()) {
	l := &s.life
	l.mu.Lock()
	l.onClose = append(l.onClose, fn)
	l.mu.Unlock()
}

// idleFor reports how long the session has been unheld with no work (a
// running task, a live PTY, recent output: idlework.go), zero when it is
// busy. It records the start of idleness it notices.
func (s *session) idleFor(now time.Time) time.Duration {
	busy := s.working(now) // idlework.go
	l := &s.life
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.holds > 0 || busy:
		l.idleSince = time.Time{}
		return 0
	case l.idleSince.IsZero():
		l.idleSince = now
		return 0
	}
	return now.Sub(l.idleSince)
}

// close releases everything the session keeps. The registry has already
// forgotten it and marked it closed, so nothing can attach to it or start
// work in it; close runs once.
func (s *session) close() {
	ctx, cancel := context.WithTimeout(context.Background(), sessionCloseWait)
	defer cancel()
	_ = s.tasks.Close(ctx) // records and any task that raced the close

	s.mu.Lock()
	for n := range s.refs {
		s.dropLocked(n)
	}
	s.names, s.bound, s.leashEnv = nameView{}, nil, nil
	s.mu.Unlock()
	if s.budget != nil {
		s.budget.forget(s)
	}

	// The last spawn's tail, before the hooks close its scope; a task
	// that outlived the wait above settles its own from now on.
	s.later.Close()

	s.life.mu.Lock()
	hooks := s.life.onClose
	s.life.onClose = nil
	s.life.mu.Unlock()
	for i := len(hooks) - 1; i >= 0; i-- {
		hooks[i]()
	}
}

// registry holds the kernel's sessions and counts them against the
// session limits.
type registry struct {
	mu       sync.Mutex
	sessions map[sessionKey]*session
	// closing holds the sessions reap handed out and whose close has not
	// finished, each with a channel closed when it has: a new session of
	// the same key waits for it, so the old one's close (which frees its
	// event scope, output spools and restart state by key) cannot take
	// the new one's with it.
	closing map[sessionKey]chan struct{}
	count   map[string]int // sessions per principal
	tokens  int            // sessions of principals other than the owner
	owner   string         // the kernel owner's principal
	limits  Limits
	budget  *budget // shared by every session's transcript
}

func (r *registry) init(owner string, l Limits) {
	r.sessions = map[sessionKey]*session{}
	r.closing = map[sessionKey]chan struct{}{}
	r.count = map[string]int{}
	r.owner, r.limits = owner, l
	r.budget = newBudget(MaxKernelTranscriptBytes)
}

// sessionLimitError is an attach refused by a session limit.
type sessionLimitError struct {
	budget    string // the Limits field's name in docs and data
	flag      string
	limit     int
	principal string
}

func (e *sessionLimitError) Error() string {
	who := "principal " + e.principal + " keeps"
	switch e.budget {
	case "token_sessions":
		who = "token principals together keep"
	case "owner_sessions":
		who = "the kernel owner keeps"
	}
	return fmt.Sprintf("session limit reached: %s %d sessions (%s = %d, --%s); sessions left unattached close after the idle period",
		who, e.limit, e.budget, e.limit, e.flag)
}

// rpcError is the error's wire form (see quotaDenied).
func (e *sessionLimitError) rpcError() error {
	return quotaDenied(e.Error(), e.budget, int64(e.limit))
}

// limitFor checks whether principal may have one more session; r.mu is
// held.
func (r *registry) limitFor(principal string) error {
	n := r.count[principal]
	if principal == r.owner {
		if n >= r.limits.OwnerSessions {
			return &sessionLimitError{"owner_sessions", "owner-sessions", r.limits.OwnerSessions, principal}
		}
		return nil
	}
	if n >= r.limits.SessionsPerPrincipal {
		return &sessionLimitError{"sessions_per_principal", "principal-sessions", r.limits.SessionsPerPrincipal, principal}
	}
	if r.tokens >= r.limits.TokenSessions {
		return &sessionLimitError{"token_sessions", "token-sessions", r.limits.TokenSessions, principal}
	}
	return nil
}

// get returns the session for key, held once for the caller (release it),
// creating it with newInterp when there is none; created says which.
// onNew, when set, prepares a new session before it is published.
func (r *registry) get(key sessionKey, newInterp func(*toolTable) (*eval.Interp, host.Host, error), onNew func(*session)) (s *session, created bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// A session of this key still closing is waited for (its close is
	// bounded: sessionCloseWait for its tasks, the PTY grace for its
	// terminals).
	for {
		done, ok := r.closing[key]
		if !ok {
			break
		}
		r.mu.Unlock()
		<-done
		r.mu.Lock()
	}
	if s, ok := r.sessions[key]; ok && s.acquire() {
		return s, false, nil
	}
	if err := r.limitFor(key.principal); err != nil {
		return nil, false, err
	}
	tools := &toolTable{}
	in, h, err := newInterp(tools)
	if err != nil {
		return nil, false, err
	}
	s = &session{key: key, interp: in, host: h, tools: tools, refs: map[int]stored{}, start: 1, limit: MaxTranscriptBytes,
		budget: r.budget, dir: in.Dir(), env: in.Environ()}
	s.bound = in.Bindings()
	s.names = viewFrom(s.bound)
	s.tasks = tasks.New()
	if onNew != nil {
		onNew(s)
	}
	s.acquire()
	r.sessions[key] = s
	r.count[key.principal]++
	if key.principal != r.owner {
		r.tokens++
	}
	return s, true, nil
}

// all returns every session.
func (r *registry) all() []*session {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*session, 0, len(r.sessions))
	for _, s := range r.sessions {
		out = append(out, s)
	}
	return out
}

// len reports how many sessions the registry keeps, counting those
// still closing.
func (r *registry) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sessions) + len(r.closing)
}

// closed marks the close of a session reap handed out as finished. Only
// then does the session stop counting against its principal's limits: until
// its close has released what it kept, a closing session is as costly as a
// live one, and a principal cycling sessions through idleness must not hold
// more than its limit at once.
func (r *registry) closed(key sessionKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	done, ok := r.closing[key]
	if !ok {
		return
	}
	close(done)
	delete(r.closing, key)
	if r.count[key.principal]--; r.count[key.principal] <= 0 {
		delete(r.count, key.principal)
	}
	if key.principal != r.owner {
		r.tokens--
	}
}

// reap forgets every session idle for at least idle and returns them,
// marked closed, for the caller to close and then report closed.
func (r *registry) reap(now time.Time, idle time.Duration) []*session {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*session
	for key, s := range r.sessions {
		if s.idleFor(now) < idle {
			continue
		}
		s.life.mu.Lock()
		if s.life.holds > 0 { // held since idleFor looked
			s.life.mu.Unlock()
			continue
		}
		s.life.closed = true
		s.life.mu.Unlock()
		delete(r.sessions, key)
		r.closing[key] = make(chan struct{})
		out = append(out, s)
	}
	return out
}

// reapEvery is how often the kernel looks for idle sessions: a quarter of
// the idle period, between 10 ms and 1 s.
func reapEvery(idle time.Duration) time.Duration {
	return min(max(idle/4, 10*time.Millisecond), time.Second)
}

// reapSessions closes idle sessions until the server shuts down.
func (s *Server) reapSessions() {
	idle := s.limits.SessionIdle
	if idle <= 0 {
		return
	}
	tick := time.NewTicker(reapEvery(idle))
	defer tick.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case now := <-tick.C:
			for _, sess := range s.sessions.reap(now, idle) {
				s.log.Debug("closing idle session", "principal", sess.key.principal, "session", sess.key.name)
				sess.close()
				s.sessions.closed(sess.key)
			}
		}
	}
}
