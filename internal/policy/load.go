package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/shoalgo/shoal/internal/host"
)

// LoadError is a policy file that cannot be used. Line and Col (from 1)
// locate the offending key or value; both are 0 when the error has no
// single place (an unreadable file, a ~ glob without a home directory).
type LoadError struct {
	Path string // "" for Parse
	Line int
	Col  int
	Msg  string
}

// Error renders "policy.toml:3:10: unknown field ...".
func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString("policy")
	if e.Path != "" {
		b.WriteString(" ")
		b.WriteString(e.Path)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Load reads and parses the policy file at path (see Parse). A missing or
// unreadable file is a *LoadError too.
func Load(path, home string) (*Policy, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &LoadError{Path: path, Msg: err.Error()}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, &LoadError{Path: path, Msg: err.Error()}
	}
	p, err := Parse(data, home)
	if err != nil {
		var le *LoadError
		if errors.As(err, &le) {
			le.Path = path
		}
		return nil, err
	}
	p.path = path
	return p, nil
}

// Parse parses a policy document strictly: an unknown field, a value of the
// wrong type, a bad glob, a bad host:port, a bad name and an unknown
// auto_apply or opaque value are each a *LoadError with the line and
// column of the offending key or value. home is what a leading `~`
// expands to.
func Parse(data []byte, home string) (*Policy, error) {
	if len(data) > MaxFileBytes {
		return nil, &LoadError{Msg: fmt.Sprintf("file is larger than %d bytes", MaxFileBytes)}
	}
	var doc fileTOML
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, loadError(err)
	}
	if len(doc.Principal) > MaxPrincipals {
		return nil, &LoadError{Msg: fmt.Sprintf("more than %d principals", MaxPrincipals)}
	}
	p := &Policy{principals: make(map[string]*Grants, len(doc.Principal)), gen: generationOf(data, home)}
	for name, entry := range doc.Principal {
		if name == "" || strings.ContainsRune(name, 0) {
			return nil, &LoadError{Msg: fmt.Sprintf("bad principal name %q", name)}
		}
		g, err := entry.grants(name, home)
		if err != nil {
			return nil, &LoadError{Msg: fmt.Sprintf("principal %q: %v", name, err)}
		}
		p.principals[name] = g
	}
	return p, nil
}

// loadError turns a decoder error into a *LoadError with its position.
func loadError(err error) error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		de := sm.Errors[0]
		line, col := de.Position()
		return &LoadError{Line: line, Col: col, Msg: fmt.Sprintf("unknown field %q", strings.Join(de.Key(), "."))}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		return &LoadError{Line: line, Col: col, Msg: strings.TrimPrefix(de.Error(), "toml: ")}
	}
	return &LoadError{Msg: err.Error()}
}

// fileTOML is the document: only [principal."NAME"] tables.
type fileTOML struct {
	Principal map[string]principalTOML `toml:"principal"`
}

type fsTOML struct {
	Read   []globText `toml:"read"`
	Write  []globText `toml:"write"`
	Delete []globText `toml:"delete"`
}

// principalTOML is one principal's table. Aliases (net, spawn, secrets)
// add to the field they stand for.
type principalTOML struct {
	FS             fsTOML        `toml:"fs"`
	NetConnect     []netText     `toml:"net_connect"`
	Net            []netText     `toml:"net"`
	NetListen      []uint16      `toml:"net_listen"`
	ProcSpawn      []spawnText   `toml:"proc_spawn"`
	Spawn          []spawnText   `toml:"spawn"`
	EnvRead        []envText     `toml:"env_read"`
	EnvWrite       []envText     `toml:"env_write"`
	SecretUse      []secretText  `toml:"secret_use"`
	Secrets        []secretText  `toml:"secrets"`
	SysRead        []factText    `toml:"sys_read"`
	SessionWrite   bool          `toml:"session_write"`
	JournalRead    bool          `toml:"journal_read"`
	Time           bool          `toml:"time"`
	AutoApply      autoApplyText `toml:"auto_apply"`
	Opaque         opaqueText    `toml:"opaque"`
	Hermetic       bool          `toml:"hermetic"`
	Approve        bool          `toml:"approve"`
	SelfApprove    bool          `toml:"self_approve"`
	JournalReadAll bool          `toml:"journal_read_all"`
}

func (t *principalTOML) grants(name, home string) (*Grants, error) {
	g := &Grants{
		Principal:      name,
		Defined:        true,
		NetListen:      slices.Clone(t.NetListen),
		SessionWrite:   t.SessionWrite,
		JournalRead:    t.JournalRead,
		Time:           t.Time,
		AutoApply:      AutoApply(t.AutoApply.s),
		Opaque:         OpaqueMode(t.Opaque.s),
		Hermetic:       t.Hermetic,
		Approve:        t.Approve,
		SelfApprove:    t.SelfApprove,
		JournalReadAll: t.JournalReadAll,
	}
	if g.AutoApply == "" {
		g.AutoApply = DefaultAutoApply
	}
	if g.Opaque == "" {
		g.Opaque = DefaultOpaque
	}
	var err error
	for _, l := range []struct {
		field string
		in    []globText
		out   *[]Glob
	}{{"fs.read", t.FS.Read, &g.FSRead}, {"fs.write", t.FS.Write, &g.FSWrite}, {"fs.delete", t.FS.Delete, &g.FSDelete}} {
		if len(l.in) > MaxGrantsPerList {
			return nil, fmt.Errorf("%s: more than %d grants", l.field, MaxGrantsPerList)
		}
		for _, gt := range l.in {
			var text string
			if text, err = ExpandHome(gt.s, home); err == nil {
				var gl Glob
				if gl, err = CompileGlob(text); err == nil {
					*l.out = append(*l.out, gl)
					continue
				}
			}
			return nil, fmt.Errorf("%s: %w", l.field, err)
		}
	}
	for _, n := range slices.Concat(t.NetConnect, t.Net) {
		g.NetConnect = append(g.NetConnect, NetGrant(n))
	}
	for _, s := range slices.Concat(t.ProcSpawn, t.Spawn) {
		g.ProcSpawn = append(g.ProcSpawn, s.s)
	}
	for _, s := range t.EnvRead {
		g.EnvRead = append(g.EnvRead, s.s)
	}
	for _, s := range t.EnvWrite {
		g.EnvWrite = append(g.EnvWrite, s.s)
	}
	for _, s := range slices.Concat(t.SecretUse, t.Secrets) {
		g.SecretUse = append(g.SecretUse, s.s)
	}
	for _, s := range t.SysRead {
		g.SysRead = append(g.SysRead, s.s)
	}
	for _, n := range [...]int{len(g.NetConnect), len(g.NetListen), len(g.ProcSpawn), len(g.EnvRead), len(g.EnvWrite), len(g.SecretUse), len(g.SysRead)} {
		if n > MaxGrantsPerList {
			return nil, fmt.Errorf("a grant list has more than %d entries", MaxGrantsPerList)
		}
	}
	return g, nil
}

// The value types below validate a value as it is decoded, so that an
// error carries the value's own line and column.

// globText is a path glob as written (before ~ expansion).
type globText struct{ s string }

func (t *globText) UnmarshalText(b []byte) error {
	s := string(b)
	// Check the shape now, for the position; ~ expands after decoding.
	probe := s
	switch {
	case s == "~" || strings.HasPrefix(s, "~/"):
		probe = "/" + s[1:]
	case strings.HasPrefix(s, "~"):
		return fmt.Errorf("bad glob %q: ~user is not supported", s)
	}
	if _, why := globSegs(probe); why != "" {
		return fmt.Errorf("bad glob %q: %s", s, why)
	}
	*t = globText{string(s)}
	return nil
}

// netText is a net_connect grant "host-glob:port" or "host-glob:*".
type netText NetGrant

func (t *netText) UnmarshalText(b []byte) error {
	s := string(b)
	h, p, ok := splitHostPort(s)
	if !ok {
		return fmt.Errorf("bad net grant %q: want host:port or host:* (IPv6 as [addr]:port)", s)
	}
	if len(h) > MaxGlobBytes {
		return fmt.Errorf("bad net grant: host longer than %d bytes", MaxGlobBytes)
	}
	if _, err := pathMatchCheck(h); err != nil {
		return fmt.Errorf("bad net grant %q: host glob: %v", s, err)
	}
	n := NetGrant{Host: strings.ToLower(h)}
	if p == "*" {
		n.AnyPort = true
	} else {
		port, err := parsePort(p)
		if err != nil {
			return fmt.Errorf("bad net grant %q: %v", s, err)
		}
		n.Port = port
	}
	*t = netText(n)
	return nil
}

// hashLike is a content-hash spawn grant, which this policy does not
// support (it is refused rather than ignored). Compiled on first use (by a
// sync.Once, not sync.OnceValue, whose closure a package initialiser would
// make at every start).
func hashLike() *regexp.Regexp {
	hashLikeRE.Do(func() { hashLikeRE.re = regexp.MustCompile(`^([a-z0-9]+:)?[0-9a-fA-F]{32,}$`) })
	return hashLikeRE.re
}

var hashLikeRE struct {
	sync.Once
	re *regexp.Regexp
}

// spawnText is a proc_spawn grant: "*", an absolute clean path, or a bare
// program name.
type spawnText struct{ s string }

func (t *spawnText) UnmarshalText(b []byte) error {
	s := string(b)
	switch {
	case s == "":
		return errors.New("empty proc_spawn grant")
	case strings.ContainsRune(s, 0):
		return fmt.Errorf("bad proc_spawn grant %q: contains NUL", s)
	case hashLike().MatchString(s) || strings.Contains(s, ":"):
		return fmt.Errorf("proc_spawn grant %q: content-hash grants are not supported; name the program or its absolute path", s)
	case s == "*":
	case strings.HasPrefix(s, "/"):
		if !normalised(s) {
			return fmt.Errorf("bad proc_spawn grant %q: path is not normalised", s)
		}
	case strings.Contains(s, "/"):
		return fmt.Errorf("bad proc_spawn grant %q: a path must be absolute", s)
	case strings.ContainsAny(s, "*?["):
		return fmt.Errorf("bad proc_spawn grant %q: only \"*\" alone is a wildcard", s)
	}
	*t = spawnText{string(s)}
	return nil
}

// envText is an environment variable name or "*".
type envText struct{ s string }

func (t *envText) UnmarshalText(b []byte) error {
	s := string(b)
	if err := checkName("environment variable", s); err != nil {
		return err
	}
	if strings.Contains(s, "=") {
		return fmt.Errorf("bad environment variable name %q: contains =", s)
	}
	*t = envText{string(s)}
	return nil
}

// secretText is a secret name or "*".
type secretText struct{ s string }

func (t *secretText) UnmarshalText(b []byte) error {
	s := string(b)
	if err := checkName("secret", s); err != nil {
		return err
	}
	*t = secretText{string(s)}
	return nil
}

// factText is a sys_read fact name (host.FactNames) or "*".
type factText struct{ s string }

func (t *factText) UnmarshalText(b []byte) error {
	s := string(b)
	if s != "*" && !slices.Contains(host.FactNames, s) {
		return fmt.Errorf("unknown sys_read fact %q (known: %s, or *)", s, strings.Join(host.FactNames, ", "))
	}
	*t = factText{string(s)}
	return nil
}

type autoApplyText struct{ s string }

func (t *autoApplyText) UnmarshalText(b []byte) error {
	switch s := AutoApply(b); s {
	case AutoNever, AutoInGrant, AutoReversible:
		*t = autoApplyText{string(s)}
		return nil
	}
	return fmt.Errorf("bad auto_apply %q: want \"never\", \"in-grant\" or \"reversible\"", b)
}

type opaqueText struct{ s string }

func (t *opaqueText) UnmarshalText(b []byte) error {
	switch s := OpaqueMode(b); s {
	case OpaqueDeny, OpaqueAsk, OpaqueAllow:
		*t = opaqueText{string(s)}
		return nil
	}
	return fmt.Errorf("bad opaque %q: want \"deny\", \"ask\" or \"allow\"", b)
}

func checkName(what, s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty %s name", what)
	case strings.ContainsRune(s, 0):
		return fmt.Errorf("bad %s name %q: contains NUL", what, s)
	case s != "*" && strings.ContainsAny(s, "*?["):
		return fmt.Errorf("bad %s name %q: only \"*\" alone is a wildcard", what, s)
	}
	return nil
}
