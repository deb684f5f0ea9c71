package sysmon

// self is the running program's own file: /proc/self/exe names the
// executable the process runs even when its path was replaced or removed.
func self() string { return "/proc/self/exe" }
