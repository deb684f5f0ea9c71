package sandbox

// Fixed bounds on what one set of Rules may carry: each root and port is
// one landlock_add_rule(2) per Prepare.
const (
	MaxRoots = 1024 // ReadOnly plus ReadWrite paths
	MaxPorts = 1024 // ConnectTCP plus BindTCP ports
)
