package kernel

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// sessionKey identifies a session: two principals naming the same session
// get two sessions.
type sessionKey struct{ principal, name string }

// session is one evaluator with its transcript of addressable values.
type session struct {
	key    sessionKey
	interp *eval.Interp // used only by the holder of the current turn
	turns  turnstile
	tasks  taskTable

	mu    sync.Mutex // guards the fields below
	dir   string     // working directory after the latest exec
	env   []string   // environment after the latest exec
	seq   int
	refs  map[int]value.Value
	start int // lowest n still kept
}

// store adds v to the transcript and returns its number, dropping the
// oldest value beyond MaxTranscript.
func (s *session) store(v value.Value) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	s.refs[s.seq] = v
	if len(s.refs) > MaxTranscript {
		for ; s.start <= s.seq-MaxTranscript; s.start++ {
			delete(s.refs, s.start)
		}
	}
	return s.seq
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
	dir, env := s.interp.Dir(), s.interp.Environ()
	s.mu.Lock()
	s.dir, s.env = dir, env
	s.mu.Unlock()
}

// lookup returns transcript value n.
func (s *session) lookup(n int) (value.Value, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.refs[n]
	return v, ok
}

// registry holds the kernel's sessions.
type registry struct {
	mu       sync.Mutex
	sessions map[sessionKey]*session
}

func (r *registry) init() { r.sessions = map[sessionKey]*session{} }

var errTooManySessions = errors.New("session limit reached")

// get returns the session for key, creating it with newInterp.
func (r *registry) get(key sessionKey, newInterp func() (*eval.Interp, error)) (*session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.sessions[key]; ok {
		return s, nil
	}
	if len(r.sessions) >= MaxSessions {
		return nil, errTooManySessions
	}
	in, err := newInterp()
	if err != nil {
		return nil, err
	}
	s := &session{key: key, interp: in, refs: map[int]value.Value{}, start: 1, dir: in.Dir(), env: in.Environ()}
	r.sessions[key] = s
	return s, nil
}

// newSessionInterp builds the evaluator for a new session of principal.
// Until policy is enforced, the kernel owner's principal may do anything
// and every other principal is denied every effect; pure evaluation works
// for all.
func (s *Server) newSessionInterp(principal string) (*eval.Interp, error) {
	// Other principals also start from an empty environment: reading the
	// kernel's variables is an env_read effect they are denied.
	authz, env := host.DenyAll, []string{}
	if principal == s.local {
		authz = host.AllowAll
		if s.cfg.Env != nil {
			env = s.cfg.Env
		}
	}
	return eval.New(eval.Options{Host: host.NewOS(authz), Dir: s.cfg.Dir, Env: env})
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
