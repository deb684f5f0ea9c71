package proto

import "encoding/json"

// This file and the other api_*.go files declare every kernel method's
// params and result: the kernel decodes and encodes them, the client
// package and internal/mcp use them. Params whose members the kernel must
// see as absent or present (a required member, a number whose zero is not
// its default) are pointers, or, for the types a client builds by hand,
// plain fields whose presence the type's UnmarshalJSON records.

// ClientInfo describes the caller in session.attach.
type ClientInfo struct {
	Kind string `json:"kind"`
	TTY  bool   `json:"tty"`
}

// AttachParams are the params of session.attach. An empty Session means
// "default"; an empty Token attaches as the kernel owner's local principal.
type AttachParams struct {
	Session string      `json:"session,omitempty"`
	Token   string      `json:"token,omitempty"`
	Client  *ClientInfo `json:"client,omitempty"`
	// Cwd, when set, moves the session to this absolute directory once
	// attached (as cd would, through the principal's gate); a reconnect
	// repeats the attach without it, so the session stays where it went.
	Cwd string `json:"cwd,omitempty"`

	has attachHas // the members present when decoded
}

type attachHas struct{ session, token, cwd bool }

// HasSession, HasToken and HasCwd report whether the decoded params held
// the member (an empty session name is not the default one).
func (p *AttachParams) HasSession() bool { return p.has.session }

// HasToken reports whether the decoded params held "token".
func (p *AttachParams) HasToken() bool { return p.has.token }

// HasCwd reports whether the decoded params held "cwd".
func (p *AttachParams) HasCwd() bool { return p.has.cwd }

// attachParams is AttachParams as decoded: pointers record presence (named
// as the kernel's struct was, as execParams is).
type attachParams struct {
	*attachFields
	Session *string `json:"session"`
	Token   *string `json:"token"`
	Cwd     *string `json:"cwd"`
}

type attachFields AttachParams

// UnmarshalJSON decodes the params, recording which members were present.
func (p *AttachParams) UnmarshalJSON(b []byte) error {
	*p = AttachParams{}
	w := attachParams{attachFields: (*attachFields)(p)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	p.has = attachHas{w.Session != nil, w.Token != nil, w.Cwd != nil}
	p.Session, p.Token, p.Cwd = deref(w.Session), deref(w.Token), deref(w.Cwd)
	return nil
}

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// Caps is the capability summary of an attachment.
type Caps struct {
	Enforced      bool   `json:"enforced"`
	Tier          string `json:"tier"`
	AvailableTier string `json:"available_tier"`
	// Dimensions says per dimension whether the OS sandbox confines the
	// session's spawned programs.
	Dimensions      Dimensions `json:"dimensions"`
	PolicyPrincipal string     `json:"policy_principal"`
	Profile         string     `json:"profile"`
	TokenCaps       []string   `json:"token_caps"`
	Opaque          string     `json:"opaque"`
}

// Dimensions is the per-dimension truth of Caps.Enforced.
type Dimensions struct {
	FS  bool `json:"fs"`
	Net bool `json:"net"`
}

// CWD is a session's working directory: Display is readable, Raw (base64
// of the exact bytes), when present, is authoritative.
type CWD struct {
	Display string `json:"display"`
	Raw     string `json:"raw,omitempty"`
}

// ElideDefaults are the kernel's default value budgets.
type ElideDefaults struct {
	MaxBytes    int `json:"max_bytes"`
	MaxRows     int `json:"max_rows"`
	MaxItems    int `json:"max_items"`
	MaxBytesRaw int `json:"max_bytes_raw"`
	HardCap     int `json:"hard_cap"`
}

// AttachResult is the result of session.attach.
type AttachResult struct {
	Session       string        `json:"session"`
	Principal     string        `json:"principal"`
	Caps          Caps          `json:"caps"`
	CWD           CWD           `json:"cwd"`
	EnvHash       string        `json:"env_hash"`
	ASTVersion    int           `json:"ast_version"`
	CapsEnforced  bool          `json:"caps_enforced"`
	ElideDefaults ElideDefaults `json:"elide_defaults"`
	Channels      []string      `json:"channels"`
	// Created is set when the attach made a fresh session: the name was
	// new, or its earlier session had been closed for idleness.
	Created bool `json:"created"`
	// CwdRefused says why the Cwd asked for was not entered; the session
	// is then in CWD.
	CwdRefused string `json:"cwd_refused,omitempty"`
	// Restored is set when the attach made the session anew after a
	// kernel restart and a checkpoint of it was found: its working
	// directory and environment are back, with Bindings of its bindings;
	// Dropped names those that could not be kept.
	Restored *Restored `json:"restored,omitempty"`
}

// Restored says what a session got back from its checkpoint after a
// kernel restart (session.attach).
type Restored struct {
	Bindings int      `json:"bindings"`
	Dropped  []string `json:"dropped"`
}

// Detached is the params of the session.detached notification.
type Detached struct {
	Session   string `json:"session"`
	Principal string `json:"principal"`
	Token     string `json:"token"`
	Reason    string `json:"reason"`
	Message   string `json:"message"`
}

// EnvResult is the result of session.env: names are every variable of the
// session, sorted; Env the values the principal's grants let it read.
type EnvResult struct {
	Granted bool              `json:"granted"`
	Names   []string          `json:"names"`
	Env     map[string]string `json:"env,omitempty"`
}

// ReefResult is the result of session.reef.
type ReefResult struct {
	ActiveScope string        `json:"active_scope"`
	Bindings    []ReefBinding `json:"bindings"`
	// Warnings name the directories in scope whose project files Reef
	// ignored because the kernel owner has not trusted them (or they
	// changed since), one line each.
	Warnings []string `json:"warnings,omitempty"`
}

// ReefBinding is one tool of session.reef.
type ReefBinding struct {
	Tool        string  `json:"tool"`
	Version     *string `json:"version"`
	Provider    string  `json:"provider"`
	Path        string  `json:"path"`
	Scope       string  `json:"scope"`
	Constrained bool    `json:"constrained"`
	Constraint  string  `json:"constraint,omitempty"`
	Hash8       string  `json:"hash8,omitempty"`
	Error       string  `json:"error,omitempty"`
}

// KernelInfo is the result of kernel.info.
type KernelInfo struct {
	Name       string          `json:"name"`
	Version    string          `json:"version"`
	Protocol   int             `json:"protocol"`
	ASTVersion int             `json:"ast_version"`
	Methods    []MethodInfo    `json:"methods"`
	PreAttach  []string        `json:"pre_attach"`
	Features   map[string]bool `json:"features"`
	Limits     map[string]int  `json:"limits"`
	// Tunables are the bounds in force that flags set, by flag name:
	// sizes in bytes, counts, durations in milliseconds.
	Tunables map[string]int64 `json:"tunables"`
	// Containment is nil from a kernel that does not report it.
	Containment *Containment `json:"containment"`
	// Memory is nil from a kernel that does not report it.
	Memory *KernelMemory `json:"memory"`
	// Cgo is whether the kernel binary was built with cgo; nil when it
	// does not say.
	Cgo *bool `json:"cgo"`
	// StateDir is the kernel's state directory ("" when it keeps none or
	// does not say); TokenStore its token store.
	StateDir   string `json:"state_dir"`
	TokenStore string `json:"token_store"`
	// Policy is the Leash policy in force; nil from a kernel that does
	// not say.
	Policy *KernelPolicy `json:"policy"`
}

// Implements reports whether the kernel lists method as implemented.
func (k *KernelInfo) Implements(method string) bool {
	for _, m := range k.Methods {
		if m.Name == method {
			return m.Implemented
		}
	}
	return false
}

// KernelPolicy is kernel.info's policy: the file it came from ("": the
// built-in default) and how many principals it names.
type KernelPolicy struct {
	Path       string `json:"path"`
	Principals int    `json:"principals"`
}

// KernelMemory says where a kernel's memory bounds come from
// (kernel.info's memory object; docs/kernel.md, "Memory defaults"). Sizes
// are bytes, 0 meaning none.
type KernelMemory struct {
	// Limit is the smallest of the limits found, Source where it was
	// found: "rlimit_as", "cgroup", "physical" or "none".
	Limit  int64  `json:"limit"`
	Source string `json:"source"`
	// Usable is what the Go heap may use under Limit (the address-space
	// reserve taken off an rlimit).
	Usable   int64 `json:"usable"`
	RlimitAS int64 `json:"rlimit_as"`
	Cgroup   int64 `json:"cgroup"`
	Physical int64 `json:"physical"`
	// The bounds in force (flags applied), and their derived defaults.
	SessionBudget int64            `json:"session_budget"`
	KernelBudget  int64            `json:"kernel_budget"`
	SoftLimit     int64            `json:"soft_limit"`
	Derived       map[string]int64 `json:"derived"`
}

// Containment says which mechanisms a kernel uses to end the processes its
// sessions start (kernel.info's containment object).
type Containment struct {
	// Subreaper: the kernel is a child subreaper and reaps the orphans it
	// inherits.
	Subreaper bool `json:"subreaper"`
	// Pdeathsig: direct children are killed when the kernel dies.
	Pdeathsig bool `json:"pdeathsig"`
	// Cgroup is "v2:<dir>" or "v1:<dir>" (the cgroup directory), or "none".
	Cgroup string `json:"cgroup"`
	// Walk: descendants are found through /proc, whatever their process
	// group or session.
	Walk bool `json:"walk"`
	// Supervisor: a supervisor process ends what is left when the kernel
	// dies, SIGKILL included.
	Supervisor bool `json:"supervisor"`
}
