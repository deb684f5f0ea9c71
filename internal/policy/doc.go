// Package policy is Leash policy: per-principal grants loaded from a TOML
// file, verdicts on derived plans (allow, approval required, deny) and the
// runtime gate that checks every concrete host operation against the same
// grants while a program runs.
//
// The package never touches the operating system itself except to read the
// policy file in Load; symlink resolution of the paths it judges is done by
// internal/host, which hands the resolved path in host.Op.Real.
package policy
