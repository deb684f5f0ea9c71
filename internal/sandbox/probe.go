package sandbox

import (
	"sync"
	"sync/atomic"
)

var (
	probedOnce struct {
		sync.Once
		s Support
	}
	override atomic.Pointer[Support]
)

// probed is probeKernel, measured once (by a sync.Once, not sync.OnceValue,
// whose closure a package initialiser would make at every start).
func probed() Support {
	probedOnce.Do(func() { probedOnce.s = probeKernel() })
	return probedOnce.s
}

// Probe reports what this machine's kernel can enforce. It is measured
// once and cached; it never fails: when FS or Net is false, Reason says
// why.
func Probe() Support {
	if s := override.Load(); s != nil {
		return *s
	}
	return probed()
}

// OverrideSupport makes Probe (and so Prepare) report s until the
// returned restore is called: for tests that need a machine without some
// dimension. What Prepare builds always follows the real kernel, so an
// override can make Prepare refuse or drop a dimension, never pretend one
// is enforced.
func OverrideSupport(s Support) (restore func()) {
	prev := override.Swap(&s)
	return func() { override.Store(prev) }
}
