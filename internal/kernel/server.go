package kernel

import (
	"context"
	"errors"
	"fmt"
	"github.com/shoalgo/shoal/internal/adapters"
	"github.com/shoalgo/shoal/internal/stdlib"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/auth"
	membudget "github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/contain"
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/internal/memlimit"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/trust"
	"github.com/shoalgo/shoal/proto"
)

// Config configures a Server.
type Config struct {
	// Version is the kernel version reported by kernel.info.
	Version string
	// TokenStore is the path of the token store; "" refuses every token.
	TokenStore string
	// Dir is the working directory new sessions start in (absolute).
	Dir string
	// Env is the environment new sessions start from (KEY=VALUE).
	Env []string
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger
	// EventStall is how long a connection's outbox may make no progress
	// while events wait for room before the connection is closed; zero
	// means StuckOutbox.
	EventStall time.Duration
	// Limits are the tunable bounds; nil means DefaultLimits() with the
	// memory bounds derived from Memory (ApplyMemoryDefaults).
	Limits *Limits
	// Memory is what the memory bounds' defaults were derived from, for
	// kernel.info; nil means memlimit.Derive(memlimit.Detect()).
	Memory *memlimit.Derived
	// Policy is the Leash policy; nil means policy.Default: the kernel
	// owner may do everything, every other principal nothing.
	Policy *policy.Policy
	// Processes contains every process sessions start (see package
	// contain); the caller sets it up and closes it after Shutdown. Nil
	// means a Manager without subreaper or cgroups, owned by the Server.
	Processes *contain.Manager
	// StateDir holds the journal database (journal.db) and the blob store
	// (cas/), opened by New and closed by Shutdown; "" keeps no journal.
	StateDir string
	// Registry is the builtin commands, functions, methods and
	// namespaces every session runs with and plans derive with; nil means
	// stdlib.Registry(), built once by New. Sessions share it
	// read-only.
	Registry *eval.Registry
	// Adapters is the command-adapter catalog every session runs with
	// (cmd/shoal-kernel: the bundled set layered with the user's
	// directory); nil means adapters.Bundled(). Sessions share it.
	Adapters *adapters.Catalog
	// Trust is the person's decision about project directories, which
	// every session's Reef consults (eval.Options.ProjectTrust); nil means
	// the kernel owner's store, trust.Path of Env. Sessions only read it:
	// a lock or manifest a session writes is never recorded as trusted,
	// so the directory is then changed until the owner runs `shoal trust`.
	Trust reef.Trust
}

// checkOnly hides every method of a Trust but its checks, so no session
// can carry trust over a write (reef.TrustRecorder).
type checkOnly struct{ t reef.Trust }

func (c checkOnly) Check(dir, digest string) reef.TrustState { return c.t.Check(dir, digest) }
func (c checkOnly) Stamp() string                            { return c.t.Stamp() }

// projectTrust is the trust sessions consult, read-only.
func (s *Server) projectTrust() reef.Trust {
	s.trustOnce.Do(func() {
		t := s.cfg.Trust
		if t == nil {
			t = trust.Open(trust.Path(func(k string) string { v, _ := lookupEnvList(s.cfg.Env, k); return v }))
		}
		s.trust = checkOnly{t}
	})
	return s.trust
}

// lookupEnvList is the last KEY=VALUE of key in env.
func lookupEnvList(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// adapterCatalog is the catalog sessions run with.
func (s *Server) adapterCatalog() *adapters.Catalog {
	if s.cfg.Adapters != nil {
		return s.cfg.Adapters
	}
	return adapters.Bundled()
}

// Server serves the kernel protocol on Unix listeners.
type Server struct {
	cfg    Config
	limits Limits // cfg.Limits or the defaults
	// idleFDs is the budget of descriptors sessions keep open only for
	// reuse, shared by every session's scope and Later (idlefds.go).
	idleFDs *contain.IdleFDs
	store   *auth.Store // nil: tokens refused
	euid    int
	local   string // the kernel owner's principal, uid:<euid>
	policy  *policy.Policy
	log     *slog.Logger

	// registry is cfg.Registry or the default, built once in New and
	// shared read-only by every session.
	registry *eval.Registry

	ctx    context.Context // cancelled by Shutdown: in-flight work stops
	cancel context.CancelFunc

	sessions  registry
	bus       *events.Bus
	mem       *membudget.Budget // kernel memory: every session's budget is under it
	langTasks *langQuota        // language tasks of every session (langtasks.go)
	outputs   *outputStore      // every task's output (outspool.go)
	ckpts     *checkpointStore  // session checkpoints; nil without a state directory
	gcBase    int               // the GC percent the process started with (tuneGC)
	gcHigh    int               // the raised GC percent, 0 when not tuning
	gcNow     int               // the GC percent tuneGC last set (guard goroutine only after init)
	memFrom   memlimit.Derived  // what the memory defaults come from (memdefaults.go)
	source    *sourceWork       // bounds parse and explain
	procs     *contain.Manager
	plans     *planStore  // stored plans of every session (plans.go)
	ptys      ptyRegistry // open PTYs of every session (ptys.go)
	// approvers are the principals the policy lets approve, listed once
	// (policyApprovers).
	approversOnce sync.Once
	approvers     []string
	trustOnce     sync.Once
	trust         reef.Trust // projectTrust
	ownProcs      bool       // procs was made by New and is closed by Shutdown

	// journal is the open journal and blob store; nil without a state
	// directory (journal.go).
	journal *journalStore
	// readers are the principals the policy lets read the whole journal,
	// listed once (journalReaders).
	readersOnce sync.Once
	readers     []string
	sweepWG     sync.WaitGroup // the start-up blob sweep (sweepBlobs)
	trashKicks  chan struct{}  // rm moved something into a trash (trashLoop)

	readPool *membudget.Pool // FrameMemory: read buffers of every connection
	outPool  *membudget.Pool // OutboxMemory: queued frames of every connection

	startOnce   sync.Once // the session reaper and the token watcher
	storeLogMu  sync.Mutex
	storeLogMsg string // the store problem logged last
	storeLogAt  time.Time

	mu        sync.Mutex
	closing   bool
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	adm       admission
	connWG    sync.WaitGroup

	// stopOnce runs Shutdown's teardown once; stopped is closed when it
	// has finished, so a second Shutdown waits for the first's.
	stopOnce sync.Once
	stopped  chan struct{}
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Dir == "" || !filepath.IsAbs(cfg.Dir) {
		return nil, errors.New("kernel: Config.Dir must be an absolute directory")
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{
		cfg:       cfg,
		euid:      os.Geteuid(),
		log:       log,
		listeners: map[net.Listener]struct{}{},
		conns:     map[*conn]struct{}{},
	}
	s.local = "uid:" + strconv.Itoa(s.euid)
	s.registry = cfg.Registry
	if s.registry == nil {
		s.registry = stdlib.Registry()
	}
	s.policy = cfg.Policy
	if s.policy == nil {
		s.policy = policy.Default(s.local)
	}
	if cfg.Memory != nil {
		s.memFrom = *cfg.Memory
	} else {
		s.memFrom = memlimit.Derive(memlimit.Detect())
	}
	s.limits = DefaultLimits()
	if cfg.Limits != nil {
		s.limits = *cfg.Limits
	} else {
		ApplyMemoryDefaults(&s.limits, func(string) bool { return false }, s.memFrom)
	}
	if err := settleLimits(&s.limits); err != nil {
		return nil, err
	}
	if w := clampIdleFDs(&s.limits); w != "" {
		s.log.Warn(w)
	}
	s.idleFDs = contain.NewIdleFDs(s.limits.IdleFDs)
	s.readPool = membudget.NewPool(budgetFrameMemory, s.limits.FrameMemory)
	s.outPool = membudget.NewPool(budgetOutboxMemory, s.limits.OutboxMemory)
	s.adm.principal = map[string]int{}
	if cfg.TokenStore != "" {
		s.store = auth.Open(cfg.TokenStore)
		if err := s.store.Check(); err != nil {
			s.noteStoreTrouble(err)
		}
	}
	s.procs = cfg.Processes
	if s.procs == nil {
		s.procs, s.ownProcs = contain.New(contain.Config{}), true
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.initMemory()
	s.source = newSourceWork(SourceWorkers)
	s.sessions.init(s.local, s.limits)
	s.langTasks = newLangQuota(s.local, s.limits)
	s.bus = events.New(events.WithLimits(events.Limits{
		ChannelBytes:  s.limits.EventChannelMemory,
		ScopeChannels: s.limits.EventChannels,
		ScopeBytes:    s.limits.EventSessionMemory,
		TotalBytes:    s.limits.EventMemory,
	}))
	if s.cfg.EventStall <= 0 {
		s.cfg.EventStall = StuckOutbox
	}
	s.plans = newPlanStore(planBounds{
		session: s.limits.SessionPlans, principal: s.limits.PrincipalPlans, token: s.limits.TokenPlans,
		memory: s.limits.PlanMemory, ttl: s.limits.PlanTTL, tombs: s.limits.PlanTombstones, tombsTotal: s.limits.KernelPlanTombstones,
	}, s.plansExpired)
	s.plans.gen = s.policy.Generation()
	s.plans.warn = func(msg string, err error) { s.log.Warn(msg, "err", err) }
	if cfg.StateDir != "" {
		j, err := openJournal(cfg.StateDir, s.limits)
		if err != nil {
			s.cancel()
			if s.ownProcs {
				s.procs.Close()
			}
			return nil, err
		}
		s.journal = j
		s.plans.sink = journalPlans{j.db}
		if err := s.restorePlans(); err != nil {
			j.close()
			s.cancel()
			if s.ownProcs {
				s.procs.Close()
			}
			return nil, err
		}
		s.seedJournalChannel()
		j.db.OnFinish(s.rowFinished)
		s.sweepWG.Add(3)
		go s.sweepBlobs()
		go s.blobSyncLoop()
		go s.blobSpares()
		j.initRetention(s.limits)
		if s.limits.JournalMaxBytes > 0 {
			s.sweepWG.Add(1)
			go s.retainLoop()
		}
		s.trashKicks = make(chan struct{}, 1)
		s.sweepWG.Add(1)
		go s.trashLoop()
	}
	outs, err := newOutputStore(s.limits, cfg.StateDir)
	if err != nil {
		s.cancel()
		if s.ownProcs {
			s.procs.Close()
		}
		return nil, err
	}
	s.outputs = outs
	s.initTaskRecords()
	if cfg.StateDir != "" {
		if s.ckpts, err = newCheckpointStore(cfg.StateDir, s.log); err != nil {
			s.cancel()
			if s.ownProcs {
				s.procs.Close()
			}
			return nil, err
		}
	}
	return s, nil
}

// LocalPrincipal is the kernel owner's principal, uid:<euid>.
func (s *Server) LocalPrincipal() string { return s.local }

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("kernel: server closed")

// Serve accepts connections on l until Shutdown, which makes it return
// ErrServerClosed. Serve closes l when it returns.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	s.startOnce.Do(func() {
		go s.reapSessions()
		go s.watchTokens()
	})
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
		l.Close()
	}()
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.isClosing() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if outOfFiles(err) {
				s.log.Warn("accept failed; waiting for file descriptors", "err", err)
				time.Sleep(acceptBackoff)
				continue
			}
			return fmt.Errorf("kernel: accept: %w", err)
		}
		uc, ok := nc.(*net.UnixConn)
		if !ok {
			nc.Close()
			continue
		}
		if !s.peerAllowed(uc) {
			uc.Close()
			continue
		}
		c := newConn(s, uc)
		ok, refusal := s.track(c)
		if refusal != nil {
			c.discard()
			refuse(uc, refusal)
			continue
		}
		if !ok {
			c.discard()
			uc.Close()
			return ErrServerClosed
		}
		go func() {
			defer s.untrack(c)
			c.serve()
		}()
	}
}

// peerAllowed checks the peer's uid: our own and root are accepted.
func (s *Server) peerAllowed(c *net.UnixConn) bool {
	uid, err := peerUID(c)
	if err != nil {
		s.log.Warn("closing connection: no peer credentials", "err", err)
		return false
	}
	if !uidAllowed(uid, os.Getuid(), s.euid) {
		s.log.Warn("closing connection from foreign uid", "uid", uid)
		return false
	}
	return true
}

// uidAllowed reports whether a peer with uid may talk to a kernel running
// as (ruid, euid): only the kernel's own user and root may.
func uidAllowed(uid, ruid, euid int) bool {
	return uid >= 0 && (uid == ruid || uid == euid || uid == 0)
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// track registers c, or reports why it may not be served: false when the
// server is closing, a refusal when a connection bound is reached.
func (s *Server) track(c *conn) (bool, *proto.RPCError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false, nil
	}
	if refusal := s.admitLocked(c); refusal != nil {
		return false, refusal
	}
	s.conns[c] = struct{}{}
	s.connWG.Add(1)
	return true, nil
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.releaseLocked(c)
	s.mu.Unlock()
	s.connWG.Done()
}

// Shutdown stops accepting, cancels in-flight work, lets connections send
// the answers of cancelled requests, and closes them. It returns when every
// connection is closed or ctx is done, in which case the remaining
// connections are closed abruptly.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() { s.stopped = s.teardown(ctx) })
	return s.awaitStopped(ctx, s.stopped)
}

// teardown starts the shutdown Shutdown describes, once, and returns a
// channel closed when it has finished; ctx, the first Shutdown's, bounds
// the wait for each session's tasks.
func (s *Server) teardown(ctx context.Context) chan struct{} {
	s.mu.Lock()
	s.closing = true
	for l := range s.listeners {
		l.Close()
	}
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	s.cancel()
	s.plans.close()
	for _, c := range conns {
		c.stopReading()
	}
	done := make(chan struct{})
	go func() {
		s.ptys.closeAll()
		for _, sess := range s.sessions.all() {
			if err := sess.end(ctx); err != nil {
				s.log.Warn("tasks still running at shutdown", "session", sess.key.name, "err", err)
			}
		}
		if s.ownProcs {
			s.procs.Close()
		}
		s.connWG.Wait()
		s.ckpts.close()
		s.outputs.close()
		if s.journal != nil {
			s.sweepWG.Wait()
			if err := s.journal.close(); err != nil {
				s.log.Warn("journal close", "err", err)
			}
		}
		close(done)
	}()
	return done
}

// awaitStopped waits for the teardown to finish or ctx to end; past ctx
// the remaining connections are closed abruptly.
func (s *Server) awaitStopped(ctx context.Context, done chan struct{}) error {
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.conns {
			c.nc.Close()
		}
		s.mu.Unlock()
		return fmt.Errorf("kernel: shutdown: %w", ctx.Err())
	}
}
