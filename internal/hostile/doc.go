// Package hostile holds the kernel's hostile end-to-end tests: each starts
// the real shoal-kernel binary on a temp socket under an address-space cap,
// attacks it as an untrusted principal would, and checks that the kernel
// stays up, that an owner connection beside the attack keeps being served,
// and that the attacker gets a typed error. The package has no code of its
// own outside its tests; harness_test.go is the harness. The tests are
// Linux-only (address-space caps through prlimit, /proc, cgroups), so each
// file carries a linux build tag.
package hostile
