package kernel

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shoalgo/shoal/internal/events"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/internal/pty"
	"github.com/shoalgo/shoal/proto"
)

// PTYs in the kernel: pty.open starts a program on a pseudo-terminal
// (internal/pty) for the attached session, in its working directory and
// environment, judged and started like every spawn of the session (the
// plan of one proc_spawn against its grants, then its Host's gate, OS
// sandbox and containment scope); the other pty.* methods reach only the
// PTYs of the caller's own session (anything else is UNKNOWN_PTY). Each
// PTY's screen changes (coalesced, see pty.PushInterval) and exit are
// published on its pty.N channel in the session's scope. PTYs are counted
// against SessionPTYs, PrincipalPTYs and KernelPTYs, and their grids
// against PTYCells; they are closed, their programs' trees killed, when
// their session closes or the kernel shuts down.

// Bounds of pty.open's parameters; fixed.
const (
	// maxPTYArgs bounds the arguments and maxPTYEnv the environment
	// overrides of one pty.open.
	maxPTYArgs = 4096
	maxPTYEnv  = 1024
	// ptyTerm is the TERM a PTY's program gets unless the session's
	// environment or the request names one.
	ptyTerm = "xterm-256color"
)

// ptyRegistry is the kernel's open PTYs and their counts. The zero value
// is ready.
type ptyRegistry struct {
	mu           sync.Mutex
	next         uint64
	byID         map[uint64]*ptyEntry
	perSession   map[sessionKey]int
	perPrincipal map[string]int
	total        int
	cells        int64
}

// ptyEntry is one open (or opening) PTY.
type ptyEntry struct {
	id    uint64
	owner sessionKey
	cmd   string
	cells int64
	sess  *pty.Session // nil while it is being opened
}

func (e *ptyEntry) ref() string { return "pty:" + strconv.FormatUint(e.id, 10) }

// reserve counts a new PTY of owner with cells cells against the limits
// and returns its entry (not yet visible to lookups); the caller commits
// or releases it.
func (r *ptyRegistry) reserve(owner sessionKey, cells int64, l *Limits) (*ptyEntry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID == nil {
		r.byID = map[uint64]*ptyEntry{}
		r.perSession = map[sessionKey]int{}
		r.perPrincipal = map[string]int{}
	}
	switch {
	case r.perSession[owner] >= l.SessionPTYs:
		return nil, quotaDenied(fmt.Sprintf("quota exceeded: this session has %d open PTYs (session_ptys)", l.SessionPTYs), "session_ptys", int64(l.SessionPTYs))
	case r.perPrincipal[owner.principal] >= l.PrincipalPTYs:
		return nil, quotaDenied(fmt.Sprintf("quota exceeded: principal %q has %d open PTYs (principal_ptys)", owner.principal, l.PrincipalPTYs), "principal_ptys", int64(l.PrincipalPTYs))
	case r.total >= l.KernelPTYs:
		return nil, quotaDenied(fmt.Sprintf("quota exceeded: the kernel has %d open PTYs (kernel_ptys)", l.KernelPTYs), "kernel_ptys", int64(l.KernelPTYs))
	case r.cells+cells > int64(l.PTYCells):
		return nil, quotaDenied(fmt.Sprintf("quota exceeded: open PTYs would have more than %d cells (pty_cells)", l.PTYCells), "pty_cells", int64(l.PTYCells))
	}
	r.next++
	e := &ptyEntry{id: r.next, owner: owner, cells: cells}
	r.byID[e.id] = e
	r.perSession[owner]++
	r.perPrincipal[owner.principal]++
	r.total++
	r.cells += cells
	return e, nil
}

// forgetLocked uncounts e; r.mu is held.
func (r *ptyRegistry) forgetLocked(e *ptyEntry) {
	if r.byID[e.id] != e {
		return
	}
	delete(r.byID, e.id)
	if r.perSession[e.owner]--; r.perSession[e.owner] <= 0 {
		delete(r.perSession, e.owner)
	}
	if r.perPrincipal[e.owner.principal]--; r.perPrincipal[e.owner.principal] <= 0 {
		delete(r.perPrincipal, e.owner.principal)
	}
	r.total--
	r.cells -= e.cells
}

// release forgets a reservation whose open failed.
func (r *ptyRegistry) release(e *ptyEntry) {
	r.mu.Lock()
	r.forgetLocked(e)
	r.mu.Unlock()
}

// commit makes an opened PTY visible. It reports false when its session
// closed meanwhile (the caller closes the PTY).
func (r *ptyRegistry) commit(e *ptyEntry, ps *pty.Session) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID[e.id] != e {
		return false
	}
	e.sess = ps
	return true
}

// lookup returns owner's open PTY named ref, or UNKNOWN_PTY: an absent,
// closed, still opening or foreign id all answer the same.
func (r *ptyRegistry) lookup(owner sessionKey, ref string) (*ptyEntry, error) {
	if id, ok := parsePTYRef(ref); ok {
		r.mu.Lock()
		e := r.byID[id]
		open := e != nil && e.owner == owner && e.sess != nil
		r.mu.Unlock()
		if open {
			return e, nil
		}
	}
	return nil, proto.NewError(proto.CodeUnknownPTY, "unknown PTY "+quoteRef(ref), nil)
}

// take removes owner's PTY ref from the registry, for closing it.
func (r *ptyRegistry) take(owner sessionKey, ref string) (*ptyEntry, error) {
	e, err := r.lookup(owner, ref)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID[e.id] != e {
		return nil, proto.NewError(proto.CodeUnknownPTY, "unknown PTY "+quoteRef(ref), nil)
	}
	r.forgetLocked(e)
	return e, nil
}

// resize recounts e's cells for a new grid, refusing one past PTYCells.
func (r *ptyRegistry) resize(e *ptyEntry, cells int64, l *Limits) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID[e.id] != e {
		return proto.NewError(proto.CodeUnknownPTY, "unknown PTY "+quoteRef(e.ref()), nil)
	}
	if r.cells-e.cells+cells > int64(l.PTYCells) {
		return quotaDenied(fmt.Sprintf("quota exceeded: open PTYs would have more than %d cells (pty_cells)", l.PTYCells), "pty_cells", int64(l.PTYCells))
	}
	r.cells += cells - e.cells
	e.cells = cells
	return nil
}

// list returns owner's open PTYs, in id order.
func (r *ptyRegistry) list(owner sessionKey) []*ptyEntry {
	r.mu.Lock()
	var out []*ptyEntry
	for _, e := range r.byID {
		if e.owner == owner && e.sess != nil {
			out = append(out, e)
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b *ptyEntry) int { return cmp.Compare(a.id, b.id) })
	return out
}

// closeSession closes every PTY of owner (reservations still opening are
// dropped, and their opener closes what it started), all at once, and
// returns when they are reaped.
func (r *ptyRegistry) closeSession(owner sessionKey) {
	r.closeWhere(func(e *ptyEntry) bool { return e.owner == owner })
}

// closeAll closes every PTY of the kernel at once (Shutdown), so that the
// sessions' grace periods run together, not one after another.
func (r *ptyRegistry) closeAll() {
	r.closeWhere(func(*ptyEntry) bool { return true })
}

func (r *ptyRegistry) closeWhere(match func(*ptyEntry) bool) {
	r.mu.Lock()
	var open []*ptyEntry
	for _, e := range r.byID {
		if match(e) {
			r.forgetLocked(e)
			if e.sess != nil {
				open = append(open, e)
			}
		}
	}
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range open {
		wg.Go(func() { e.sess.Close() })
	}
	wg.Wait()
}

func parsePTYRef(ref string) (uint64, bool) {
	rest, ok := strings.CutPrefix(ref, "pty:")
	if !ok || rest == "" || len(rest) > 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	if err != nil || strconv.FormatUint(n, 10) != rest {
		return 0, false
	}
	return n, true
}

// summaryOf is e as pty.open and pty.list describe it.
func summaryOf(e *ptyEntry) proto.PTYSummary {
	return proto.PTYSummary{PtyID: e.ref(), Cmd: e.cmd, Events: events.PTYChannel(e.id), PTYInfo: e.sess.Info()}
}

// attachedStarter is the Host method pty.open starts programs with
// (host.OS.StartAttached).
type attachedStarter interface {
	StartAttached(ctx context.Context, s *host.Spawn, attach func(*exec.Cmd)) (*host.Attached, error)
}

// dims reads optional cols and rows (defaults 80×24), refusing any
// outside 1..1000.
func dims(cols, rows *int, dc, dr int) (int, int, error) {
	c, r := dc, dr
	if cols != nil {
		c = *cols
	}
	if rows != nil {
		r = *rows
	}
	if pty.CheckSize(c, r) != nil {
		return 0, 0, proto.NewError(proto.CodeInvalidParams,
			fmt.Sprintf("invalid params: cols and rows must be %d..%d, not %d×%d", pty.MinDim, pty.MaxDim, c, r), nil)
	}
	return c, r, nil
}

func invalidPTYParams(msg string) error {
	return proto.NewError(proto.CodeInvalidParams, "invalid params: "+msg, nil)
}

func handlePTYOpen(ctx context.Context, c *call) (any, error) {
	var p proto.PTYOpenParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Cmd == nil || *p.Cmd == "" {
		return nil, invalidPTYParams(`"cmd" is required`)
	}
	cols, rows, err := dims(p.Cols, p.Rows, pty.DefaultCols, pty.DefaultRows)
	if err != nil {
		return nil, err
	}
	if len(p.Args) > maxPTYArgs || len(p.Env) > maxPTYEnv {
		return nil, invalidPTYParams(fmt.Sprintf("at most %d args and %d env entries", maxPTYArgs, maxPTYEnv))
	}
	if strings.IndexByte(*p.Cmd, 0) >= 0 || slices.ContainsFunc(p.Args, func(a string) bool { return strings.IndexByte(a, 0) >= 0 }) {
		return nil, invalidPTYParams("cmd and args must not contain NUL")
	}
	for k, v := range p.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.IndexByte(v, 0) >= 0 {
			return nil, invalidPTYParams(fmt.Sprintf("bad env name %q", truncateUTF8(k, 64)))
		}
	}
	srv, sess := c.conn.srv, c.att.sess
	st, ok := sess.host.(*reefHost)
	var starter attachedStarter
	if ok {
		starter, ok = st.Host.(attachedStarter)
	}
	if !ok {
		return nil, proto.NewError(proto.CodePTYSpawnFailed, "this session cannot start programs on a terminal", nil)
	}
	e, err := srv.ptys.reserve(sess.key, int64(cols)*int64(rows), &srv.limits)
	if err != nil {
		return nil, err
	}
	e.cmd = *p.Cmd
	committed := false
	defer func() {
		if !committed {
			srv.ptys.release(e)
		}
	}()

	if err := ptyLeashCheck(sess, *p.Cmd, p.Args, p.Env); err != nil {
		return nil, err
	}
	dir, env := sess.snapshot()
	env = ptyEnv(env, p.Env)
	prog, err := sess.host.LookPath(ctx, *p.Cmd, env)
	if err != nil {
		return nil, spawnError(*p.Cmd, err)
	}
	argv := append([]string{prog}, p.Args...)
	scope, channel := sess.scope(), events.PTYChannel(e.id)
	ref := e.ref()
	ps, err := pty.Open(pty.Options{
		Cols: cols, Rows: rows,
		Start: func(tty *os.File) (pty.Child, error) {
			return starter.StartAttached(ctx, &host.Spawn{Argv: argv, Dir: dir, Env: env}, func(cmd *exec.Cmd) { pty.Attach(cmd, tty) })
		},
		Notify: func(ev pty.Event) {
			srv.publishJSON(scope, channel, proto.PTYEvent{PtyID: ref, Kind: string(ev.Kind), Alive: ev.Kind != pty.EventExit, Exit: ev.Exit})
		},
	})
	if err != nil {
		return nil, spawnError(*p.Cmd, err)
	}
	if !srv.ptys.commit(e, ps) {
		ps.Close()
		return nil, proto.NewError(proto.CodePTYSpawnFailed, "the session closed while the PTY opened", nil)
	}
	committed = true
	return summaryOf(e), nil
}

// ptyEnv is the session environment env with the request's overrides
// (sorted by name, so the result does not depend on map order), and TERM
// naming the emulator unless the request names another: the session's
// own TERM, if any, describes some other terminal.
func ptyEnv(env []string, over map[string]string) []string {
	out := make([]string, 0, len(env)+len(over)+1)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := over[k]; !ok && k != "TERM" {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(over))
	for k := range over {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, k+"="+over[k])
	}
	if !slices.ContainsFunc(out, func(kv string) bool { return strings.HasPrefix(kv, "TERM=") }) {
		out = append(out, "TERM="+ptyTerm)
	}
	return out
}

// ptyLeashCheck judges pty.open before anything is looked up or started,
// as exec judges a program's plan: the plan is the spawn of cmd with args
// as leash.SpawnEffects states it for exec (the lookup, then proc_spawn
// of cmd as named, so a grant means the same for both) and an env_write
// of each name env overrides (as `env.NAME = …` is judged). Denied is
// LEASH_DENIED, needing approval APPROVAL_REQUIRED, each with data
// {verdict, effects, reasons}. The Host's gate still checks the lookup
// and the spawn of the program found.
func ptyLeashCheck(sess *session, cmd string, args []string, env map[string]string) error {
	g := sess.gate()
	if g == nil || g.current().free {
		return nil
	}
	argv := append([]string{cmd}, args...)
	lookup, spawn := leash.SpawnEffects(cmd, false, argv, func(p string) (string, bool) {
		if path.IsAbs(p) {
			return path.Clean(p), true
		}
		return p, false
	})
	plan := &leash.Plan{Effects: []leash.Effect{lookup, spawn}, Reversibility: leash.Irreversible}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		plan.Effects = append(plan.Effects, leash.Effect{Kind: host.EnvWrite, Name: k})
	}
	d := g.current().grants.Decide(plan)
	if d.Verdict == policy.Allow {
		return nil
	}
	data := proto.VerdictData{Verdict: string(d.Verdict), Effects: wireEffects(plan.Effects), Reasons: d.Reasons}
	if data.Reasons == nil {
		data.Reasons = []string{}
	}
	code, msg := proto.CodeLeashDenied, "denied by policy"
	if d.Verdict == policy.ApprovalRequired {
		code, msg = proto.CodeApprovalRequired, "approval required (pty.open has no plan to approve: grant the spawn in policy)"
	}
	if len(d.Reasons) > 0 {
		msg += ": " + strings.Join(d.Reasons, "; ")
	}
	return proto.NewError(code, fitEncoded(msg, MaxErrorText), data)
}

// spawnError maps a failure to start cmd: a refusal of the gate is
// LEASH_DENIED, anything else PTY_SPAWN_FAILED.
func spawnError(cmd string, err error) error {
	var denied *host.DeniedError
	if errors.As(err, &denied) {
		return proto.NewError(proto.CodeLeashDenied, fitEncoded(denied.Error(), MaxErrorText),
			map[string]any{"verdict": policy.Deny, "reasons": []string{denied.Reason}})
	}
	if errors.Is(err, pty.ErrSize) {
		return invalidPTYParams(err.Error())
	}
	return proto.NewError(proto.CodePTYSpawnFailed, fitEncoded("cannot start "+quoteRef(cmd)+" on a terminal: "+err.Error(), MaxErrorText), nil)
}

// ptyOf decodes params into dst (which embeds proto.PTYSelector) and
// returns the caller's PTY it names.
func (c *call) ptyOf(dst any, sel *proto.PTYSelector) (*ptyEntry, error) {
	if err := c.params(dst); err != nil {
		return nil, err
	}
	if sel.PtyID == nil {
		return nil, invalidPTYParams(`"pty_id" is required`)
	}
	return c.conn.srv.ptys.lookup(c.att.sess.key, *sel.PtyID)
}

func handlePTYSend(_ context.Context, c *call) (any, error) {
	var p proto.PTYSendParams
	e, err := c.ptyOf(&p, &p.PTYSelector)
	if err != nil {
		return nil, err
	}
	n, err := e.sess.Send(p.Input)
	var ie *pty.InputError
	switch {
	case errors.As(err, &ie):
		return nil, invalidPTYParams(ie.Error())
	case errors.Is(err, pty.ErrExited):
		return nil, proto.NewError(proto.CodeInvalidParams, e.ref()+" has exited: it reads no more input", map[string]any{"code": "exited"})
	case err != nil:
		return nil, proto.NewError(proto.CodeInternalError, fmt.Sprintf("%s: %v (%d bytes written)", e.ref(), err, n), map[string]any{"written": n})
	}
	return &proto.PTYSent{PtyID: e.ref(), Written: n}, nil
}

func handlePTYRead(ctx context.Context, c *call) (any, error) {
	var p proto.PTYReadParams
	e, err := c.ptyOf(&p, &p.PTYSelector)
	if err != nil {
		return nil, err
	}
	o := pty.ReadOptions{Styles: p.Styles, UntilChange: p.UntilChange}
	if p.Scrollback != nil {
		if *p.Scrollback < 0 {
			return nil, invalidPTYParams("scrollback must not be negative")
		}
		o.Scrollback = *p.Scrollback
	}
	if p.WaitMS != nil {
		if *p.WaitMS < 0 || *p.WaitMS > pty.MaxWait.Milliseconds() {
			return nil, invalidPTYParams(fmt.Sprintf("wait_ms must be 0..%d", pty.MaxWait.Milliseconds()))
		}
		o.Wait = time.Duration(*p.WaitMS) * time.Millisecond
	}
	// pty.read's answer: the pinned shape plus what was asked.
	return &proto.PTYScreen{PtyID: e.ref(), Cmd: e.cmd, PTYSnapshot: e.sess.Read(ctx, o)}, nil
}

func handlePTYResize(_ context.Context, c *call) (any, error) {
	var p proto.PTYResizeParams
	e, err := c.ptyOf(&p, &p.PTYSelector)
	if err != nil {
		return nil, err
	}
	if p.Cols == nil || p.Rows == nil {
		return nil, invalidPTYParams(`"cols" and "rows" are required`)
	}
	cols, rows, err := dims(p.Cols, p.Rows, 0, 0)
	if err != nil {
		return nil, err
	}
	srv := c.conn.srv
	info := e.sess.Info()
	if err := srv.ptys.resize(e, int64(cols)*int64(rows), &srv.limits); err != nil {
		return nil, err
	}
	if err := e.sess.Resize(cols, rows); err != nil {
		_ = srv.ptys.resize(e, int64(info.Cols)*int64(info.Rows), &srv.limits)
		return nil, proto.NewError(proto.CodeInternalError, e.ref()+": resize: "+err.Error(), nil)
	}
	return summaryOf(e), nil
}

func handlePTYClose(_ context.Context, c *call) (any, error) {
	var p proto.PTYSelector
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.PtyID == nil {
		return nil, invalidPTYParams(`"pty_id" is required`)
	}
	e, err := c.conn.srv.ptys.take(c.att.sess.key, *p.PtyID)
	if err != nil {
		return nil, err
	}
	exit := e.sess.Close()
	return &proto.PTYClosed{PtyID: e.ref(), Exit: &exit}, nil
}

func handlePTYList(_ context.Context, c *call) (any, error) {
	var p struct{}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	open := c.conn.srv.ptys.list(c.att.sess.key)
	out := make([]proto.PTYSummary, len(open))
	for i, e := range open {
		out[i] = summaryOf(e)
	}
	return &proto.PTYList{Ptys: out}, nil
}
