package blake3

import (
	"os"
	"strings"
)

// cpuinfoFlags reads the first "flags" line of /proc/cpuinfo.
func cpuinfoFlags() (map[string]bool, bool) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return nil, false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "flags" {
			m := map[string]bool{}
			for _, f := range strings.Fields(v) {
				m[f] = true
			}
			return m, true
		}
	}
	return nil, false
}
