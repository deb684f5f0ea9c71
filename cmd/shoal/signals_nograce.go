//go:build shoaltest_nograce

package main

import "time"

// A build for the tests whose scripts never reach the grace: what takes a
// script's signals over is then only the host's hook, and a signal before
// it finds them unregistered whatever the timing (signals_e2e_test.go).
func init() { signalGrace = 1000 * time.Hour }
