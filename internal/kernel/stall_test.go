package kernel

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// A connection whose outbox makes no progress at all while events wait is
// closed after Config.EventStall; publishers are never held up.
func TestStuckSubscriberIsClosed(t *testing.T) {
	k := startKernelWith(t, func(c *Config) { c.EventStall = 300 * time.Millisecond })
	stuck := k.dial(t)
	stuck.attach("stall", "")
	stuck.ok("events.subscribe", map[string]any{"channel": "user.s"}, nil)
	pub := k.dial(t)
	pub.attach("stall", "")
	payload := strings.Repeat("s", 4096)
	start := time.Now()
	for i := 0; i < 2000; i++ {
		pub.ok("events.publish", map[string]any{"channel": "user.s", "payload": payload}, nil)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("publishing took %v", d)
	}
	time.Sleep(time.Second)
	// Draining what was written before the stall ends in EOF.
	stuck.wait = 5 * time.Second
	for {
		_, err := stuck.readLine()
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("stuck subscriber still connected")
		}
		break
	}
	// The publisher's connection is fine.
	pub.ok("kernel.info", nil, nil)
}
