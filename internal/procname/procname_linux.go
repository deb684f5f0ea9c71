package procname

import (
	"fmt"
	"os"
	"strings"
)

// Get is the process's name as the kernel keeps it (its main thread's
// comm), "" when it cannot be read.
func Get() string {
	b, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(b), "\n")
}

// maxPasses bounds Set's passes over the process's threads: the runtime
// may start a thread, named after its creator, while a pass runs.
const maxPasses = 8

// Set gives every thread of the process name (cut to MaxLen bytes). A
// thread created later takes its creator's name, so once every thread has
// it, all will.
func Set(name string) error {
	if len(name) > MaxLen {
		name = name[:MaxLen]
	}
	for pass := 0; pass < maxPasses; pass++ {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return fmt.Errorf("naming the process %q: %w", name, err)
		}
		renamed := 0
		for _, task := range tasks {
			comm := "/proc/self/task/" + task.Name() + "/comm"
			b, err := os.ReadFile(comm)
			if err != nil {
				continue // the thread exited
			}
			if strings.TrimSuffix(string(b), "\n") == name {
				continue
			}
			if err := os.WriteFile(comm, []byte(name), 0); err != nil {
				return fmt.Errorf("naming the process %q: %w", name, err)
			}
			renamed++
		}
		if renamed == 0 {
			return nil
		}
	}
	return fmt.Errorf("naming the process %q: threads kept appearing", name)
}
