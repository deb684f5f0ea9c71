package kernel

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestShutdownTwice: Shutdown may be called again, and concurrently (a
// signal beside a deferred call); each call waits for the one teardown
// and none panics on a store already closed (the output spools' need a
// state directory).
func TestShutdownTwice(t *testing.T) {
	state := shortDir(t)
	k := startKernelWith(t, func(c *Config) { c.StateDir = state })
	c := k.dial(t)
	c.attach("", "")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = k.srv.Shutdown(ctx)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Shutdown %d: %v", i, err)
		}
	}
	if err := k.srv.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown after the teardown: %v", err)
	}
}
