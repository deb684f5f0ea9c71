package procname

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetNamesEveryThread names the test process and reads every thread's
// comm back, then puts the old name back.
func TestSetNamesEveryThread(t *testing.T) {
	old := Get()
	if old == "" {
		t.Fatal("Get read no name from /proc/self/comm")
	}
	t.Cleanup(func() {
		if err := Set(old); err != nil {
			t.Errorf("putting the name back: %v", err)
		}
	})
	const long = "procname-test-a-long-name"
	if err := Set(long); err != nil {
		t.Fatal(err)
	}
	want := long[:MaxLen]
	if got := Get(); got != want {
		t.Errorf("Get() = %q after Set(%q), want %q", got, long, want)
	}
	comms, err := filepath.Glob("/proc/self/task/*/comm")
	if err != nil || len(comms) == 0 {
		t.Fatalf("threads: %v %v", comms, err)
	}
	for _, c := range comms {
		b, err := os.ReadFile(c)
		if err != nil {
			continue // the thread exited
		}
		if got := strings.TrimSuffix(string(b), "\n"); got != want {
			t.Errorf("%s = %q, want %q", c, got, want)
		}
	}
}
