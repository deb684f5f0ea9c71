package cas

import "time"

// SweepOlder is Sweep with a grace of the caller's choosing: it spares
// unreferenced blobs written or re-Put within grace (0 spares none). A
// caller that passes less than SweepGrace must itself keep every blob it
// has Put but not yet recorded in referenced's answer (the kernel holds
// such hashes as pending until the row naming them commits, see
// internal/kernel/retention.go); like Sweep it holds every Put off while
// it runs.
func (s *Store) SweepOlder(referenced func(hash string) bool, grace time.Duration) (int, error) {
	return s.sweep(referenced, time.Now().Add(-grace))
}
