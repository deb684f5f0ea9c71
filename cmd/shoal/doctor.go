package main

// `shoal doctor`: what a kernel and its clients need, each checked and
// reported ok, warn or fail with the fix when it is not ok: the state
// directory, the kernel socket (and the kernel answering on it), the token
// store, the policy file, the companions beside shoal, Landlock and
// cgroups. Exit status as the reference's: 0 all ok, 1 a warning and no
// failure, 2 a failure.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/auth"
	"github.com/shoalgo/shoal/internal/contain"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/internal/sandbox"
	"github.com/shoalgo/shoal/internal/trust"
	buildversion "github.com/shoalgo/shoal/internal/version"
)

const doctorUsage = `usage: shoal doctor [--json] [--socket PATH] [--state-dir DIR] [--policy FILE] [--session NAME]

Checks what the kernel and its clients need and says how to fix what is
wrong. Exit status: 0 all ok, 1 warnings, 2 a failure.
`

// Levels of a check.
const (
	levelOK   = "ok"
	levelWarn = "warn"
	levelFail = "fail"
)

// check is one line of the report.
type check struct {
	Name   string `json:"name"`
	Level  string `json:"level"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// doctorPaths are what the checks look at.
type doctorPaths struct {
	StateDir, Socket, Policy, Session string
	PolicyGiven, StateDirGiven        bool
	// TokenStore is the kernel's token store when it said ("": the one
	// under StateDir).
	TokenStore string
}

func doctor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shoal doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, doctorUsage) }
	asJSON := fs.Bool("json", false, "")
	var p doctorPaths
	fs.StringVar(&p.Socket, "socket", os.Getenv("SHOAL_SOCKET"), "")
	fs.StringVar(&p.StateDir, "state-dir", "", "")
	fs.StringVar(&p.Policy, "policy", "", "")
	fs.StringVar(&p.Session, "session", "default", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "shoal doctor: unexpected arguments %q\n", fs.Args())
		return 2
	}
	p.PolicyGiven = p.Policy != ""
	p.StateDirGiven = p.StateDir != ""
	if p.StateDir == "" {
		d, err := auth.DefaultStatePath()
		if err != nil {
			fmt.Fprintf(stderr, "shoal doctor: %v\n", err)
			return 2
		}
		p.StateDir = d
	}
	if p.Socket == "" {
		p.Socket = client.DefaultSocketPath(p.Session)
	}
	if p.Policy == "" {
		p.Policy = filepath.Join(configDir(), "shoal", "leash.toml")
	}
	checks := runChecks(ctx, p)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Checks []check `json:"checks"`
		}{checks})
	} else {
		for _, c := range checks {
			fmt.Fprintf(stdout, "%-4s  %-11s %s\n", c.Level, c.Name, c.Detail)
			if c.Fix != "" {
				fmt.Fprintf(stdout, "      %-11s fix: %s\n", "", c.Fix)
			}
		}
	}
	code := 0
	for _, c := range checks {
		switch c.Level {
		case levelFail:
			code = 2
		case levelWarn:
			code = max(code, 1)
		}
	}
	return code
}

// configDir is $XDG_CONFIG_HOME, else ~/.config.
func configDir() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config")
}

// runChecks runs every check, in the report's order. A kernel that
// answers at the socket is asked for its own state directory, token
// store and policy, which are then the ones checked (unless --state-dir
// or --policy name others).
func runChecks(ctx context.Context, p doctorPaths) []check {
	sock, info := checkSocket(ctx, p.Socket)
	if info != nil {
		if info.StateDir != "" && !p.StateDirGiven {
			p.StateDir = info.StateDir
			p.TokenStore = info.TokenStore
		}
		if info.Policy != nil && !p.PolicyGiven {
			if info.Policy.Path != "" {
				p.Policy, p.PolicyGiven = info.Policy.Path, true
			}
		}
	}
	pol := checkPolicy(p.Policy, p.PolicyGiven)
	if info != nil && info.Policy != nil && info.Policy.Path == "" && !p.PolicyGiven {
		pol = check{Name: "policy", Level: levelOK,
			Detail: "the kernel runs without --policy: you may do everything, other principals nothing"}
	}
	checks := []check{
		checkStateDir(p.StateDir),
		sock,
		checkTokens(p.StateDir, p.TokenStore),
		pol,
		checkTrust(),
	}
	checks = append(checks, checkConfig()...)
	return append(checks,
		checkCompanions(),
		checkLandlock(sandbox.Probe()),
		checkCgroups(),
	)
}

// checkStateDir: the kernel creates the directory 0700 at start; one that
// exists must be ours, a directory, and private.
func checkStateDir(dir string) check {
	c := check{Name: "state dir"}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		c.Level, c.Detail = levelWarn, dir+" does not exist yet"
		c.Fix = "the kernel creates it at start, or: install -d -m 700 " + dir
		return c
	case err != nil:
		c.Level, c.Detail = levelFail, err.Error()
		c.Fix = "make " + dir + " a directory you own, mode 0700"
		return c
	case !fi.IsDir():
		c.Level, c.Detail = levelFail, dir+" is not a directory"
		c.Fix = "move it away; the kernel creates the directory at start"
		return c
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		c.Level, c.Detail = levelFail, fmt.Sprintf("%s belongs to uid %d, not you (%d)", dir, st.Uid, os.Geteuid())
		c.Fix = "use a state directory of your own (--state-dir)"
		return c
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		c.Level, c.Detail = levelFail, fmt.Sprintf("%s is mode %04o: others may replace the journal and tokens", dir, perm)
		c.Fix = "chmod 700 " + dir
		return c
	} else if perm&0o077 != 0 {
		c.Level, c.Detail = levelWarn, fmt.Sprintf("%s is mode %04o: others may list the journal and tokens", dir, perm)
		c.Fix = "chmod 700 " + dir
		return c
	}
	probe, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		c.Level, c.Detail = levelFail, fmt.Sprintf("%s is not writable: %v", dir, err)
		c.Fix = "chmod u+rwx " + dir
		return c
	}
	probe.Close()
	os.Remove(probe.Name())
	c.Level, c.Detail = levelOK, dir+" (0700, writable)"
	return c
}

// checkSocket: a kernel answers at the socket, with this build's version;
// its kernel.info is returned (nil when none answered).
func checkSocket(ctx context.Context, sock string) (check, *client.KernelInfo) {
	c := check{Name: "socket"}
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	cl, err := client.Dial(ctx, sock)
	if err != nil {
		c.Level, c.Detail = levelWarn, "no kernel listening at "+sock
		c.Fix = "start one: shoal kernel --socket " + sock + " (or the systemd user unit in contrib/systemd)"
		return c, nil
	}
	defer cl.Close()
	info, err := cl.KernelInfo(ctx)
	if err != nil {
		c.Level, c.Detail = levelFail, fmt.Sprintf("%s accepts connections but kernel.info failed: %v", sock, err)
		c.Fix = "restart the kernel"
		return c, nil
	}
	c.Level, c.Detail = levelOK, fmt.Sprintf("kernel %s at %s", info.Version, sock)
	if info.Containment != nil {
		c.Detail += ", cgroup " + info.Containment.Cgroup
	}
	if info.StateDir != "" {
		c.Detail += ", state dir " + info.StateDir
	} else {
		c.Detail += ", no state dir (no journal)"
	}
	if pol := info.Policy; pol != nil && pol.Path != "" {
		c.Detail += fmt.Sprintf(", policy %s (%d principals)", pol.Path, pol.Principals)
	} else if pol != nil {
		c.Detail += ", default policy"
	}
	if m := info.Memory; m != nil {
		c.Detail += fmt.Sprintf(", memory: %s limit %d MiB, session budget %d MiB, kernel budget %d MiB, soft limit %d MiB",
			m.Source, m.Limit>>20, m.SessionBudget>>20, m.KernelBudget>>20, m.SoftLimit>>20)
	}
	if info.Cgo != nil && *info.Cgo {
		c.Level = levelWarn
		c.Detail += "; the kernel was built with cgo"
		c.Fix = "rebuild it pure Go: CGO_ENABLED=0 go install ./cmd/..."
	}
	if v := buildversion.String(); info.Version != v {
		c.Level = levelWarn
		c.Detail += " (this shoal is " + v + ")"
		c.Fix = "restart the kernel from this build: shoal kernel"
	}
	return c, info
}

// checkTokens: the store the kernel and shoal-token share is private
// and readable (a missing store is an empty one).
func checkTokens(stateDir, store string) check {
	c := check{Name: "tokens"}
	path := store
	if path == "" {
		var err error
		if path, err = auth.ResolveStorePath(stateDir); err != nil {
			c.Level, c.Detail = levelFail, err.Error()
			return c
		}
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		c.Level, c.Detail = levelOK, path+": no tokens yet (only you can attach)"
		return c
	}
	st := auth.Open(path)
	if err := st.Check(); err != nil {
		c.Level, c.Detail = levelFail, err.Error()
		c.Fix = "chmod 600 " + path + ", owned by you; or remove it and create tokens again with shoal token create"
		return c
	}
	toks, err := st.List()
	if err != nil {
		c.Level, c.Detail = levelFail, err.Error()
		return c
	}
	active := 0
	for _, t := range toks {
		if t.State(time.Now()) == "active" {
			active++
		}
	}
	c.Level, c.Detail = levelOK, fmt.Sprintf("%s: %d tokens, %d active", path, len(toks), active)
	return c
}

// checkTrust: the person's trust store (shoal trust) must read strictly;
// a malformed one trusts no project directory.
func checkTrust() check {
	c := check{Name: "trust"}
	store := trust.Open(trust.Path(os.Getenv))
	if store.FilePath() == "" {
		c.Level, c.Detail = levelWarn, "neither XDG_STATE_HOME nor HOME is an absolute path: no project directory can be trusted"
		c.Fix = "set HOME"
		return c
	}
	es, err := store.List()
	if err != nil {
		c.Level, c.Detail = levelFail, err.Error()+"; no project directory is trusted"
		c.Fix = "chmod 600 " + store.FilePath() + ", owned by you; or remove it and run shoal trust again in each project"
		return c
	}
	c.Level, c.Detail = levelOK, fmt.Sprintf("%s: %d trusted directories", store.FilePath(), len(es))
	return c
}

// checkPolicy: an explicit policy must load; the default location may be
// absent (the kernel's default policy then applies).
func checkPolicy(path string, given bool) check {
	c := check{Name: "policy"}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && !given {
		c.Level = levelOK
		c.Detail = "no " + path + ": a kernel without --policy lets you do everything and other principals nothing"
		return c
	}
	home, _ := os.UserHomeDir()
	if _, err := policy.Load(path, home); err != nil {
		c.Level, c.Detail = levelFail, err.Error()
		c.Fix = "correct the file at the place named (format in docs/security.md); the kernel refuses to start with it"
		return c
	}
	c.Level, c.Detail = levelOK, path+" loads"
	if !given {
		c.Detail += " (a kernel uses it only with --policy " + path + ")"
	}
	return c
}

// checkCompanions: shoal kernel and shoal token run the binaries beside
// this one.
func checkCompanions() check {
	c := check{Name: "companions"}
	var missing []string
	dir := ""
	for _, name := range []string{"shoal-kernel", "shoal-token", "shoal-mcp"} {
		p, err := companionPath(name)
		if err != nil {
			c.Level, c.Detail = levelFail, err.Error()
			return c
		}
		dir = filepath.Dir(p)
		if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		c.Level, c.Detail = levelWarn, strings.Join(missing, ", ")+" not beside shoal in "+dir
		c.Fix = "install them there: go build -o " + dir + "/ ./cmd/..."
		return c
	}
	c.Level, c.Detail = levelOK, "shoal-kernel, shoal-token, shoal-mcp in "+dir
	return c
}

// checkLandlock: whether the kernel can confine what sessions spawn.
func checkLandlock(s sandbox.Support) check {
	c := check{Name: "landlock"}
	switch {
	case s.FS && s.Net:
		c.Level, c.Detail = levelOK, fmt.Sprintf("ABI %d: filesystem and network rules enforced", s.ABI)
	case s.FS:
		c.Level, c.Detail = levelWarn, fmt.Sprintf("ABI %d: filesystem rules enforced, network not: %s", s.ABI, s.Reason)
		c.Fix = "a Linux kernel of 6.7 or later enforces network rules"
	default:
		c.Level, c.Detail = levelWarn, "not available: "+s.Reason
		c.Fix = "Linux 6.2+ with landlock in the lsm= boot list confines spawned programs; without it policy is still checked, not enforced by the OS"
	}
	return c
}

// checkCgroups: whether the kernel can track what sessions start through
// a cgroup of its own (it falls back to walking /proc).
func checkCgroups() check {
	c := check{Name: "cgroups"}
	m := contain.New(contain.Config{Cgroups: true, Name: "shoal-doctor"})
	f := m.Features()
	m.Close()
	if f.Cgroup == "" || f.Cgroup == "none" {
		c.Level, c.Detail = levelWarn, "no writable cgroup: processes are tracked by walking /proc"
		c.Fix = "run the kernel as a systemd user service with Delegate=yes (contrib/systemd/shoal-kernel.service)"
		return c
	}
	c.Level, c.Detail = levelOK, f.Cgroup+" (created and removed)"
	return c
}
