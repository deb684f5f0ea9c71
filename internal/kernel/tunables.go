package kernel

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Limits are the kernel's tunable bounds: the budgets a hostile principal
// runs into. Fixed bounds stay constants (limits.go and each package's
// limits.go); the ones an operator may size for a machine are fields here,
// each with a default in DefaultLimits and a flag in limitFlags. The limits
// table in docs/kernel.md lists both kinds.
type Limits struct {
	// Placeholder so the struct is never empty; real bounds follow.
	_ struct{}

	// SessionsPerPrincipal bounds the sessions one token principal keeps
	// at once; attaching a further name is LEASH_DENIED (quota_exceeded,
	// budget "sessions_per_principal").
	SessionsPerPrincipal int
	// TokenSessions bounds the sessions all token principals keep
	// together (budget "token_sessions").
	TokenSessions int
	// OwnerSessions bounds the kernel owner's sessions. They are counted
	// apart from TokenSessions, so other principals cannot use up the
	// owner's room (budget "owner_sessions").
	OwnerSessions int
	// SessionIdle is how long a session with no attached connection, no
	// request in flight and no running task is kept before it is closed
	// and its resources released; zero keeps sessions forever.
	SessionIdle time.Duration
}

// DefaultLimits returns the limits sized for the reference machine class
// (2 cores, 24 GiB).
func DefaultLimits() Limits {
	return Limits{
		SessionsPerPrincipal: 32,
		TokenSessions:        1024,
		OwnerSessions:        1024,
		SessionIdle:          10 * time.Minute,
	}
}

// limitFlag is one command-line flag that sets a field of Limits.
type limitFlag struct {
	name, usage string
	// one of these is set
	size     func(l *Limits) *int64
	count    func(l *Limits) *int
	duration func(l *Limits) *time.Duration
}

// limitFlags is the table of tunable bounds and their flags.
var limitFlags = []limitFlag{
	{name: "principal-sessions", usage: "sessions one token principal may keep at once",
		count: func(l *Limits) *int { return &l.SessionsPerPrincipal }},
	{name: "token-sessions", usage: "sessions all token principals may keep together",
		count: func(l *Limits) *int { return &l.TokenSessions }},
	{name: "owner-sessions", usage: "sessions the kernel owner may keep (counted apart from token principals')",
		count: func(l *Limits) *int { return &l.OwnerSessions }},
	{name: "session-idle", usage: "close a session with no connection, request or running task after this long (0: never)",
		duration: func(l *Limits) *time.Duration { return &l.SessionIdle }},
}

// RegisterLimitFlags adds a flag for every tunable bound to fs; parsing
// writes into l, which should hold DefaultLimits() first.
func RegisterLimitFlags(fs *flag.FlagSet, l *Limits) {
	for _, f := range limitFlags {
		switch {
		case f.size != nil:
			fs.Var(sizeFlag{f.size(l)}, f.name, f.usage)
		case f.count != nil:
			fs.IntVar(f.count(l), f.name, *f.count(l), f.usage)
		case f.duration != nil:
			fs.DurationVar(f.duration(l), f.name, *f.duration(l), f.usage)
		}
	}
}

// sizeFlag parses a byte size: a plain number of bytes or one with a
// suffix KiB, MiB, GiB (also K, M, G; powers of 1024).
type sizeFlag struct{ p *int64 }

func (f sizeFlag) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.FormatInt(*f.p, 10)
}

func (f sizeFlag) Set(s string) error {
	n, err := ParseSize(s)
	if err != nil {
		return err
	}
	*f.p = n
	return nil
}

// ParseSize parses a byte count such as "4096", "64KiB", "2GiB" or "512M".
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.m
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("bad size %q: want bytes, or a number with KiB, MiB or GiB", s)
	}
	return n * mult, nil
}
