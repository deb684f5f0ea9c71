// Package diewithparent gives tests the process attributes that make a
// child they start (a kernel, a facade) die with the test binary, where
// the platform can: on Linux the parent-death signal; elsewhere nothing,
// and the test's cleanup must end the child.
package diewithparent
