package reef

import "time"

// Bounds on what Reef reads and keeps. They are set here and nowhere else.
const (
	// MaxManifestBytes bounds one manifest or lock file; a larger file is
	// skipped by discovery and refused by the commands that edit it.
	MaxManifestBytes = 1 << 20
	// MaxScopeDepth bounds the directories discovery walks up from the
	// working directory (a path has far fewer components in practice).
	MaxScopeDepth = 256
	// MaxTools bounds the tools one manifest or lock file may declare.
	MaxTools = 1024
	// MaxCandidates bounds the candidates one provider reports for a tool.
	MaxCandidates = 256
	// MaxPathDirs bounds the PATH directories the system provider visits.
	MaxPathDirs = 256
	// MaxHashCache bounds the executables whose digest a Resolver keeps.
	MaxHashCache = 1024
	// ProbeTimeout bounds one `TOOL --version` probe.
	ProbeTimeout = 300 * time.Millisecond
	// MaxProbeOutput bounds the probe output searched for a version.
	MaxProbeOutput = 4096
)
