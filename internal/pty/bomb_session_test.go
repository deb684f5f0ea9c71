package pty

import (
	"context"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Bounds of a session beside a terminal bomb.
const (
	// bombReadMax bounds Read, Info and Resize, and bombCloseMax Close,
	// while the program keeps the emulator as busy as it can.
	bombReadMax  = 2 * time.Second
	bombCloseMax = CloseGrace + killWait + time.Second
	// bombCPUShare bounds the share of a core the whole test process
	// uses while the bomb goes off: EmuShare for the feeder, the rest
	// for reading the terminal and collecting the emulator's garbage.
	bombCPUShare = 0.9
)

func processCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestSessionBombs: on the largest screen, where every scroll of the
// emulator moves a million cells, a program printing REP and line-feed
// bombs as fast as it can leaves Read, Info and Resize answering within
// bombReadMax and Close within bombCloseMax, and the emulation within
// its share of a core.
func TestSessionBombs(t *testing.T) {
	for _, bomb := range []string{`x\033[2000000000b`, `\n\n\n\n\n\n\n\n`, `\033[2J\033[1000S\033c`} {
		t.Run(bomb, func(t *testing.T) {
			dim := MaxDim
			if raceEnabled {
				dim = 200 // the largest screen takes minutes under the race detector
			}
			s := open(t, Options{Cols: dim, Rows: dim}, "sh", "-c", `while :; do printf "$1"; done`, "bomb", bomb)
			time.Sleep(300 * time.Millisecond)
			cpu0, wall0 := processCPU(), time.Now()
			var slowest time.Duration
			for i := range 4 {
				start := time.Now()
				snap := s.Read(context.Background(), ReadOptions{})
				d := time.Since(start)
				slowest = max(slowest, d)
				if d > bombReadMax {
					t.Errorf("read %d took %v, bound %v", i, d, bombReadMax)
				}
				if snap.Cols != dim || snap.Rows != dim {
					t.Errorf("the screen is %dx%d", snap.Cols, snap.Rows)
				}
				start = time.Now()
				s.Info()
				if d := time.Since(start); d > bombReadMax {
					t.Errorf("info took %v, bound %v", d, bombReadMax)
				}
				time.Sleep(300 * time.Millisecond)
			}
			share := float64(processCPU()-cpu0) / float64(time.Since(wall0))
			start := time.Now()
			if err := s.Resize(dim-1, dim-1); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > bombReadMax {
				t.Errorf("resize took %v, bound %v", d, bombReadMax)
			}
			start = time.Now()
			s.Close()
			d := time.Since(start)
			if d > bombCloseMax {
				t.Errorf("close took %v, bound %v", d, bombCloseMax)
			}
			t.Logf("slowest read %v; CPU share %.2f of a core; close in %v", slowest.Round(time.Millisecond), share, d.Round(time.Millisecond))
			if share > bombCPUShare && !raceEnabled {
				t.Errorf("the process used %.2f of a core, bound %.2f", share, bombCPUShare)
			}
		})
	}
}
