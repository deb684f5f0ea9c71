//go:build !linux

package blake3

func cpuinfoFlags() (map[string]bool, bool) { return nil, false }
