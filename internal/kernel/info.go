package kernel

import (
	"context"
	buildversion "github.com/shoalgo/shoal/internal/version"
	"maps"

	"github.com/shoalgo/shoal/internal/contain"
	"github.com/shoalgo/shoal/proto"
)

// ProtocolRevision numbers the RPC surface this kernel serves; it grows
// when methods or result shapes change incompatibly.
const ProtocolRevision = 1

// ASTVersion versions the serialised AST vocabulary.
const ASTVersion = 2

// channels are the kernel channels named in the attach result.
var channels = []string{"session.transcript", "journal", "approval", "render"}

// features are the optional capabilities this kernel build has.
var features = map[string]bool{
	"peer_cred":       true,
	"tokens":          true,
	"exec.run":        true,
	"exec.plan":       true,
	"exec.async":      true,
	"exec.timeout":    true,
	"session.env":     true,
	"elision":         true,
	"value.raw_slice": true,
	"policy":          false,
	"journal":         false, // true when the kernel has a state directory (handleKernelInfo)
	"events":          true,
	"tasks":           true,
	"pty":             true,
	"complete":        true,
	"explain":         true,
	"plans":           true,
	"exec.position":   true,
	"task.suspend":    true,
	"events.bridge":   true,
}

func handleKernelInfo(_ context.Context, c *call) (any, error) {
	version := c.conn.srv.cfg.Version
	if version == "" {
		version = buildversion.String()
	}
	return &proto.KernelInfo{
		Name:       "shoal-kernel",
		Version:    version,
		Protocol:   ProtocolRevision,
		ASTVersion: ASTVersion,
		Methods:    Methods(),
		PreAttach:  proto.PreAttachMethods(),
		Features:   c.conn.srv.features(),
		Limits: map[string]int{
			"max_frame":             proto.MaxFrame,
			"max_inflight_per_conn": MaxInflightPerConn,
			"outbox_frames":         OutboxFrames,
			"max_raw_bytes":         MaxRawBytes,
			"hard_cap":              HardCap,
			"max_transcript":        MaxTranscript,
			// Memory budgets (0: unbounded); see memory.go.
			"session_memory":           int(c.conn.srv.limits.SessionMemory),
			"kernel_memory":            int(c.conn.srv.limits.KernelMemory),
			"memory_limit":             int(c.conn.srv.limits.MemoryLimit),
			"session_transcript_bytes": MaxTranscriptBytes,
			"kernel_transcript_bytes":  MaxKernelTranscriptBytes,
		},
		Tunables:    c.conn.srv.limits.report(),
		Containment: containment(c.conn.srv.procs.Features()),
		Memory:      c.conn.srv.memoryReport(),
		Cgo:         buildCgo(),
		StateDir:    c.conn.srv.cfg.StateDir,
		TokenStore:  c.conn.srv.cfg.TokenStore,
		// Policy: the file it was loaded from ("": the built-in default,
		// under which the owner may do everything and every other principal
		// nothing) and how many principals it names.
		Policy: &proto.KernelPolicy{Path: c.conn.srv.policy.Path(), Principals: len(c.conn.srv.policy.Principals())},
	}, nil
}

// buildCgo is kernel.info's cgo: whether the build used cgo, nil when
// unknown.
func buildCgo() *bool {
	if cgo, known := buildversion.Cgo(); known {
		return &cgo
	}
	return nil
}

// features is this kernel's feature map: the build's, with journal set
// when it keeps one.
func (s *Server) features() map[string]bool {
	if s.journal == nil {
		return features
	}
	f := maps.Clone(features)
	f["journal"] = true
	return f
}

// containment is kernel.info's containment: which mechanisms end the
// processes sessions start.
func containment(f contain.Features) *proto.Containment {
	return &proto.Containment{Subreaper: f.Subreaper, Pdeathsig: f.Pdeathsig, Cgroup: f.Cgroup, Walk: f.Walk, Supervisor: f.Supervisor}
}
