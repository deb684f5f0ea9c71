package sandbox

// Fixed bounds on what one set of Rules may carry. The rules travel to the
// trampoline as one argument, which Linux limits to 128 KiB
// (MAX_ARG_STRLEN); MaxEncoded stays well below it.
const (
	MaxRoots   = 1024     // ReadOnly plus ReadWrite paths
	MaxPorts   = 1024     // ConnectTCP plus BindTCP ports
	MaxEncoded = 64 << 10 // bytes of the encoded rules
)

// TrampolineCommand is the argument with which a program runs the
// trampoline: `self TrampolineCommand <encoded rules> -- argv...` (see
// Wrap and RunTrampolineIfRequested).
const TrampolineCommand = "__shoal_sandbox_trampoline"
