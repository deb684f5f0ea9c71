package kernel

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	membudget "github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/internal/secretstore"
	"github.com/shoalgo/shoal/internal/tasks"
	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// sessionKey identifies a session: two principals naming the same session
// get two sessions.
type sessionKey struct{ principal, name string }

// session is one evaluator with its transcript of addressable values.
type session struct {
	key    sessionKey
	interp *eval.Interp // used only by the holder of the current turn
	host   host.Host    // the session's gate, for completion's listings
	tools  *toolTable   // programs resolved, for session.reef
	turns  turnstile
	tasks  *tasks.Registry // this session's background execs

	mu    sync.Mutex // guards the fields below
	dir   string     // working directory after the latest exec
	env   []string   // environment after the latest exec
	names nameView   // bindings after the latest exec, for completion
	seq   int
	refs  map[int]stored
	start int // lowest n that may still be kept
	bytes int // approximate size of the values kept
	limit int // bound on bytes; MaxTranscriptBytes
	// bound is the bindings names was taken from, and leashEnv the plan
	// environment built from dir, env and names (leashenv.go): nil until
	// asked for, dropped whenever any of the three changes.
	bound    []eval.Binding
	leashEnv *leash.Env

	budget *budget      // the kernel-wide account; nil in some tests
	ptys   *ptyRegistry // the kernel's PTYs, this session's to close; nil in some tests

	life lifecycle // holds, idleness and the release path (lifecycle.go)

	// ckpt checkpoints the session for a restart (checkpoint.go); nil
	// without a state directory. Only the turn holder uses it.
	ckpt *checkpointer
	// restored is what a restart's checkpoint gave back when the session
	// was made (restore.go); nil when there was none.
	restored *proto.Restored

	work workMarks // recent work that keeps it from idling (idlework.go)

	// later holds the tail of the latest spawn of an exec answered
	// inline, run once the answer is sent (answeredThenFlush) or by the
	// session's next spawn, and at the latest when the session closes (Close).
	later host.Later
}

// stored is one transcript value, its approximate size and its place in
// the kernel-wide budget.
type stored struct {
	v    value.Value
	size int
	elem *list.Element
}

// scope is the events scope of the session.
func (s *session) scope() events.Scope {
	return events.Scope{Principal: s.key.principal, Session: s.key.name}
}

// owner is the tasks owner of the session.
func (s *session) owner() tasks.Owner {
	return tasks.Owner{Principal: s.key.principal, Session: s.key.name}
}

// store adds v to the transcript and returns its number, dropping the
// oldest values beyond MaxTranscript values or MaxTranscriptBytes bytes,
// and then, when all sessions together hold more than the kernel-wide
// budget, the oldest values of any session (each session's newest value
// is always kept).
func (s *session) store(v value.Value) int {
	size := approxSize(v, s.limit)
	s.mu.Lock()
	s.seq++
	n := s.seq
	var elem *list.Element
	if s.budget != nil {
		elem = s.budget.add(s, n, size)
	}
	s.refs[n] = stored{v, size, elem}
	s.bytes += size
	for s.start < s.seq && (len(s.refs) > MaxTranscript || s.bytes > s.limit) {
		s.dropLocked(s.start)
		s.start++
	}
	s.mu.Unlock()
	if s.budget != nil {
		for _, e := range s.budget.victims() {
			e.sess.drop(e.n)
		}
	}
	return n
}

// releaseMemory closes the session's memory budget: the kernel-wide
// memory budget gets the session's share back at once, whenever its values
// are finally collected. Closing the session runs it (an onClose hook; the
// transcript's share is dropped by close itself); the session must not
// evaluate afterwards.
func (s *session) releaseMemory() {
	if s.interp != nil {
		s.interp.Budget().Close()
	}
}

// dropLocked forgets out:n, in the budget too; s.mu is held.
func (s *session) dropLocked(n int) {
	old, ok := s.refs[n]
	if !ok {
		return
	}
	s.bytes -= old.size
	delete(s.refs, n)
	if s.budget != nil {
		s.budget.remove(old.elem)
	}
}

// drop forgets out:n because the kernel-wide budget chose it.
func (s *session) drop(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropLocked(n)
}

// snapshot returns the session's working directory and environment as of
// its latest exec.
func (s *session) snapshot() (string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir, s.env
}

// settle records the evaluator's directory and environment; only the turn
// holder calls it.
func (s *session) settle() {
	s.mu.Lock()
	prevEnv := s.env
	s.mu.Unlock()
	// The environment is copied only when it changed (most execs change
	// none of it); unchanged, env is s.env's own slice.
	dir := s.interp.Dir()
	env, _ := s.interp.EnvironUnchanged(prevEnv)
	bs := s.interp.Bindings()
	s.mu.Lock()
	same := dir == s.dir && slices.Equal(env, s.env) && sameBindings(s.bound, bs)
	s.bound = bs // the latest, so that no value it replaced is kept alive
	s.mu.Unlock()
	if !same {
		// Most execs change none of them: the view and the plan
		// environment built from it are kept for the next (leashenv.go).
		names := viewFrom(bs)
		s.mu.Lock()
		s.dir, s.env, s.names, s.bound, s.leashEnv = dir, env, names, bs, nil
		s.mu.Unlock()
	}
	s.ckpt.note(s.key, dir, env, bs) // checkpoint.go
}

// lookup returns transcript value n.
func (s *session) lookup(n int) (value.Value, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.refs[n]
	return st.v, ok
}

// newSessionInterp builds the evaluator for a new session of principal,
// whose first attachment has grants g. Its Host asks the session's gate
// (grants.go) about every effect; unless the grants are unrestricted (the
// kernel owner by default), every process it spawns runs in the OS
// sandbox lowered from the same grants, and it starts from the kernel's
// environment filtered to the variables its env_read grants allow, so
// neither its code nor its programs see the others. Pure evaluation works
// for all.
func (s *Server) newSessionInterp(principal string, g *policy.Grants, tools *toolTable) (*eval.Interp, host.Host, error) {
	var self func() []int
	if principal != s.local {
		self = s.selfPids
	}
	trash := s.trashDir(principal)
	g = g.WithTrash(trash)
	gate := newSessionGate(g, envValue(s.cfg.Env, "HOME"), self)
	st := gate.current()
	env, withheld := sessionEnv(g, s.cfg.Env, st.free)
	if env == nil {
		env = []string{}
	}
	procs := s.procs.NewScopeCharged(s.idleFDs)
	// The secret store is the kernel's (its own environment's), whatever
	// the session's environment says.
	// Every program starts in a session of its own, with no controlling
	// terminal: the terminal the kernel was started from is its own, and
	// no session's program may read it, write to it or take it over.
	opts := []host.Option{host.WithProcesses(procs), host.WithSecretDir(secretstore.Dir(s.cfg.Env)), host.WithoutTerminal()}
	if !st.free || principal != s.local {
		// Asked at every spawn: a token principal's grants may narrow
		// while the session lives (sessionGate.narrow), even from
		// unrestricted ones; no token may name the owner, whose
		// unrestricted session never narrows and stays unsandboxed.
		opts = append(opts, host.WithSandbox(gate.sandboxRules))
	}
	rh := &reefHost{Host: host.NewOS(gate, opts...), table: tools, procs: procs, gate: gate, withheld: withheld}
	// Its language tasks are charged to the kernel's bounds and listed in
	// its task registry (langtasks.go; wireSession binds the session).
	rh.langTasks = &langTaskHook{q: s.langTasks, srv: s, principal: principal}
	// Each session's values and captured output are charged to its own
	// memory budget, under the kernel-wide one (see memory.go).
	mem := membudget.New(SessionMemoryBudget, s.limits.SessionMemory, s.mem)
	var trashed func()
	if trash != "" && s.trashKicks != nil {
		trashed = s.trashKick
	}
	in, err := eval.New(eval.Options{Registry: s.registry, Host: rh, Dir: s.startDir(g), Trash: trash, Trashed: trashed, Env: env, Budget: mem, Tasks: rh.langTasks,
		Journal: s.evalJournalFor(principal, gate), Content: s.evalContentFor(principal, gate), Reef: true,
		ProjectTrust: s.projectTrust(), Adapters: s.adapterCatalog()})
	if err != nil {
		mem.Close()
		procs.Close()
		return nil, nil, err
	}
	// The evaluator runs lookups on the turn holder's goroutine, so its
	// own directory is current.
	rh.dir = in.Dir
	return in, rh, nil
}

// gate is the session's runtime gate.
func (s *session) gate() *sessionGate {
	if rh, ok := s.host.(*reefHost); ok && rh.gate != nil {
		return rh.gate
	}
	return nil
}

// withheld names the kernel's variables the session's environment left
// out (sorted).
func (s *session) withheld() []string {
	if rh, ok := s.host.(*reefHost); ok {
		return rh.withheld
	}
	return nil
}

// envHash is the SHA-256 (lowercase hex) of the environment's KEY=VALUE
// entries, sorted and NUL-separated.
func envHash(env []string) string {
	sorted := append([]string(nil), env...)
	sort.Strings(sorted)
	h := sha256.New()
	for _, kv := range sorted {
		h.Write([]byte(kv))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// refName and refURI name transcript value n.
func refName(n int) string { return "out:" + strconv.Itoa(n) }
func refURI(n int) string  { return "shoal://out/" + strconv.Itoa(n) }

// parseRef reads "out:N"; it reports false for anything else.
func parseRef(ref string) (int, bool) {
	rest, ok := strings.CutPrefix(ref, "out:")
	if !ok || rest == "" || len(rest) > 18 {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n, true
}
