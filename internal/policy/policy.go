package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"sort"
)

// Verdict is the outcome of judging a plan.
type Verdict string

// The three verdicts. Deny dominates ApprovalRequired, which dominates Allow.
const (
	Allow            Verdict = "allow"
	ApprovalRequired Verdict = "approval_required"
	Deny             Verdict = "deny"
)

// Decision is a verdict on a plan with the reason for every effect that is
// not simply allowed (and for an auto_apply rule that asks for approval).
type Decision struct {
	Verdict Verdict  `json:"verdict"`
	Reasons []string `json:"reasons,omitempty"`
}

// AutoApply says whether a plan whose effects are all granted runs without
// approval.
type AutoApply string

// The auto_apply values.
const (
	AutoNever      AutoApply = "never"      // every plan with effects needs approval
	AutoInGrant    AutoApply = "in-grant"   // a plan inside the grants runs
	AutoReversible AutoApply = "reversible" // ... only when it is reversible
)

// OpaqueMode is how an effect that derivation could not make concrete is
// judged.
type OpaqueMode string

// The opaque values.
const (
	OpaqueDeny  OpaqueMode = "deny"
	OpaqueAsk   OpaqueMode = "ask"
	OpaqueAllow OpaqueMode = "allow"
)

// Defaults of a principal entry that leaves a control out.
const (
	DefaultAutoApply = AutoInGrant
	DefaultOpaque    = OpaqueAsk
)

// NetGrant is one net_connect grant: a host glob and a port, AnyPort for
// `:*`. Host "*" with AnyPort is every destination.
type NetGrant struct {
	Host    string `json:"host"`
	Port    uint16 `json:"port,omitempty"`
	AnyPort bool   `json:"any_port,omitempty"`
}

// Grants is what one principal may do: the loaded entry of a policy file,
// everything (the kernel owner without an entry) or nothing (an unknown
// principal, Defined false). A Grants is immutable once returned; Narrow
// returns a new one. Its methods are safe for concurrent use.
type Grants struct {
	Principal string
	// Defined is false for a principal with no policy: every effect is
	// denied (pure evaluation is still allowed).
	Defined bool

	FSRead, FSWrite, FSDelete []Glob

	NetConnect []NetGrant
	NetListen  []uint16
	// NetListenAny allows listening on every port (the owner's default).
	NetListenAny bool

	// ProcSpawn lists programs: "*" (any), an absolute path (that exact
	// program) or a bare name (a program of that base name that the
	// principal cannot write, see Allows).
	ProcSpawn []string
	// EnvRead, EnvWrite, SecretUse and SysRead list names, "*" for all.
	EnvRead, EnvWrite, SecretUse, SysRead []string

	SessionWrite, JournalRead, Time bool

	AutoApply AutoApply
	Opaque    OpaqueMode
	Hermetic  bool

	Approve, SelfApprove, JournalReadAll bool

	// Trash is the kernel's trash directory for this principal ("" none):
	// see WithTrash.
	Trash string
}

// Policy is a loaded policy file: grants by principal name.
type Policy struct {
	path       string
	principals map[string]*Grants
	gen        string // Generation
}

// defaultGeneration is the generation of the policy without a file,
// generationOf([]byte("shoal default policy"), ""), written out rather than
// hashed by a package initialiser at every start
// (TestDefaultGenerationIsTheDigest).
const defaultGeneration = "1e1e0cbe2c35e63b5c9c5069840d11605e10c8ce7d418d7e1cbb0ba9e3bb8eb7"

// generationOf is the generation of a policy document read with home
// (which counts only when the document has a "~" to expand).
func generationOf(data []byte, home string) string {
	h := sha256.New()
	if bytes.ContainsRune(data, '~') {
		h.Write([]byte(home))
	}
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// Generation names the policy in force: the SHA-256 of its document and,
// when it has a "~", the home directory that expanded to (64 lowercase
// hex), or a fixed value for Default. Two policies with the same generation grant the same; an
// approval given under one generation is not honoured under another.
func (p *Policy) Generation() string {
	if p == nil || p.gen == "" {
		return defaultGeneration
	}
	return p.gen
}

// Default is the policy used without a policy file: the kernel owner may do
// everything (see For), every other principal nothing.
func Default(owner string) *Policy {
	_ = owner // the owner is recognised by For's isOwner, not by name
	return &Policy{principals: map[string]*Grants{}}
}

// Path is the file the policy was loaded from ("" for Parse and Default).
func (p *Policy) Path() string { return p.path }

// Principals lists the principal names the policy defines, sorted.
func (p *Policy) Principals() []string {
	names := slices.Collect(maps.Keys(p.principals))
	sort.Strings(names)
	return names
}

// For returns the grants of principal: the policy's entry if it has one;
// otherwise, for the kernel owner (isOwner), everything (Everything); and
// otherwise nothing (Nothing). The result is a copy the caller may keep.
func (p *Policy) For(principal string, isOwner bool) *Grants {
	if p != nil {
		if g, ok := p.principals[principal]; ok {
			c := g.clone()
			c.Principal = principal
			return c
		}
	}
	if isOwner {
		return Everything(principal)
	}
	return Nothing(principal)
}

// Everything is the grants of the kernel owner without a policy entry:
// every effect, auto_apply "in-grant", opaque "allow", approver, and the
// whole journal. It cannot approve its own plans (self_approve false).
func Everything(principal string) *Grants {
	all, _ := CompileGlob("/**")
	return &Grants{
		Principal:      principal,
		Defined:        true,
		FSRead:         []Glob{all},
		FSWrite:        []Glob{all},
		FSDelete:       []Glob{all},
		NetConnect:     []NetGrant{{Host: "*", AnyPort: true}},
		NetListenAny:   true,
		ProcSpawn:      []string{"*"},
		EnvRead:        []string{"*"},
		EnvWrite:       []string{"*"},
		SecretUse:      []string{"*"},
		SysRead:        []string{"*"},
		SessionWrite:   true,
		JournalRead:    true,
		Time:           true,
		AutoApply:      AutoInGrant,
		Opaque:         OpaqueAllow,
		Approve:        true,
		JournalReadAll: true,
	}
}

// Nothing is the grants of a principal without a policy: no effect at all.
func Nothing(principal string) *Grants {
	return &Grants{Principal: principal, AutoApply: AutoNever, Opaque: OpaqueDeny}
}

func (g *Grants) clone() *Grants {
	c := *g
	c.FSRead = slices.Clone(g.FSRead)
	c.FSWrite = slices.Clone(g.FSWrite)
	c.FSDelete = slices.Clone(g.FSDelete)
	c.NetConnect = slices.Clone(g.NetConnect)
	c.NetListen = slices.Clone(g.NetListen)
	c.ProcSpawn = slices.Clone(g.ProcSpawn)
	c.EnvRead = slices.Clone(g.EnvRead)
	c.EnvWrite = slices.Clone(g.EnvWrite)
	c.SecretUse = slices.Clone(g.SecretUse)
	c.SysRead = slices.Clone(g.SysRead)
	return &c
}

// CanApprove reports whether the principal may approve plans (cap.request).
func (g *Grants) CanApprove() bool { return g != nil && g.Approve }

// CanSelfApprove reports whether it may approve its own plans too.
func (g *Grants) CanSelfApprove() bool { return g != nil && g.Approve && g.SelfApprove }

// CanReadAllJournal reports whether journal.query may return other
// principals' rows to it.
func (g *Grants) CanReadAllJournal() bool { return g != nil && g.JournalReadAll }
