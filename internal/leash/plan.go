package leash

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
)

// Reversibility values of a Plan, from least to most consequential: the
// wire's vocabulary (reversible, conditional, unknown, irreversible).
const (
	// Reversible: only observations and session-local changes, or no
	// effects at all (pure evaluation).
	Reversible = "reversible"
	// Conditional: changes with an inverse that works only if the prior
	// state allows it (trash moves, overwrites of files that existed).
	Conditional = "conditional"
	// Unknown: some part of the program could not be bounded (it is
	// opaque), so what it would take to undo it is not known.
	Unknown = "unknown"
	// Irreversible: permanent deletion, creation and spawned programs. A
	// known irreversible effect outranks an unknown part.
	Irreversible = "irreversible"
)

// revRank orders the reversibility values.
func revRank(r string) int {
	switch r {
	case Reversible:
		return 1
	case Conditional:
		return 2
	case Unknown:
		return 3
	case Irreversible:
		return 4
	}
	return 0
}

// Effect is one thing a program may do. Path is absolute and lexically
// normalised (a glob argument keeps its pattern, made absolute). Program and
// Argv describe a spawn; Name names an environment variable (or "*" for the
// whole environment) or a system fact. Dynamic marks an effect whose target
// is not statically known; its other fields are then best effort.
type Effect struct {
	Kind    host.Effect `json:"kind"`
	Path    string      `json:"path,omitempty"`
	Program string      `json:"program,omitempty"`
	Argv    []string    `json:"argv,omitempty"`
	Name    string      `json:"name,omitempty"`
	Dynamic bool        `json:"dynamic,omitempty"`
}

// key is the canonical one-line form of e, used for de-duplication and
// fingerprints.
func (e Effect) key() string {
	var b strings.Builder
	b.WriteString(string(e.Kind))
	for _, f := range [...]string{e.Path, e.Program, e.Name} {
		b.WriteByte(0)
		b.WriteString(f)
	}
	for _, a := range e.Argv {
		b.WriteByte(1)
		b.WriteString(a)
	}
	b.WriteByte(0)
	b.WriteString(strconv.FormatBool(e.Dynamic))
	return b.String()
}

// Plan is the statically derived description of a program: its effects in
// source order without duplicates, its reversibility (Reversible,
// Conditional, Unknown or Irreversible), whether any part is opaque, and notes that
// explain opacity or approximations to a human.
type Plan struct {
	Effects       []Effect `json:"effects"`
	Reversibility string   `json:"reversibility"`
	Opaque        bool     `json:"opaque"`
	Notes         []string `json:"notes,omitempty"`
}

// Env is what derivation may know about the session without running
// anything. Every func field may be nil.
type Env struct {
	// Dir is the absolute working directory relative paths resolve
	// against; Home is the home directory `~` expands to.
	Dir  string
	Home string
	// Trash is the directory rm (without --permanent) moves targets into,
	// creating a per-process directory there; eval.TrashRoot computes it
	// from a session's environment. Empty names it only as "trash".
	Trash string
	// IsBound reports a value-bound session name (the same predicate given
	// to syntax.Parse).
	IsBound func(name string) bool
	// TypeOf returns the type name ("path", "str", "closure", ...) of a
	// bound session value, or "" when unknown.
	TypeOf func(name string) string
	// Function reports a session function. The declaration may be nil when
	// its body is not available, which makes calls to it opaque.
	Function func(name string) (*syntax.FnDecl, bool)
	// Alias reports a session alias and its target command. A nil target
	// makes uses of it opaque.
	Alias func(name string) (*syntax.CmdCall, bool)
	// Adapter reports a command head a command adapter declares, and what
	// the call does under its declaration (see Adapted). A head it does
	// not know is an ordinary external program.
	Adapter func(c *syntax.CmdCall) (Adapted, bool)
	// Registry is the names a program can use unbound: builtin commands,
	// value functions, methods and namespace members, each with its effect
	// declaration (eval.Registry). Nil: every command head is an external
	// program and no method or member has effects.
	Registry Registry
}

// Fingerprint is a descriptive, deterministic digest of a plan and the
// source it was derived from: "fp:" and 16 hex digits of SHA-256. It is not
// a plan ref: refs are random and only a stored plan has one.
func Fingerprint(p *Plan, src string) string {
	h := sha256.New()
	if p != nil {
		for _, e := range p.Effects {
			h.Write([]byte(e.key()))
			h.Write([]byte{'\n'})
		}
		h.Write([]byte(p.Reversibility))
		h.Write([]byte{0})
		h.Write([]byte(strconv.FormatBool(p.Opaque)))
	}
	h.Write([]byte{0})
	h.Write([]byte(src))
	return "fp:" + hex.EncodeToString(h.Sum(nil)[:8])
}
