//go:build ignore

// Cold starts of several commands in turn, ROUNDS times after five warm-up
// rounds: for each, the wall time and, from wait4's rusage, the CPU (user and
// system), minor faults and voluntary context switches of every start; p50
// and mean. The commands alternate, so load drifts alike for all of them.
// Each argument is LABEL::COMMAND ARGS (split on spaces); LABEL@K=V adds K=V
// to that command's environment. (docs/performance.md, "Cold start: the
// eighth round".)
//
//	go run scripts/coldstart-alternate.go 150 'true::/bin/true' 'shoal::./shoal -c 1' 'one@GOMAXPROCS=1::./shoal -c 1'
package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type run struct {
	label                     string
	argv                      []string
	env                       []string
	wall, cpu, flt, vcs, ivcs []float64
}

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	var runs []*run
	for _, a := range os.Args[2:] {
		lab, cmd, _ := strings.Cut(a, "::")
		env := os.Environ()
		if l, e, ok := strings.Cut(lab, "@"); ok {
			lab = l
			env = append(env, e)
		}
		runs = append(runs, &run{label: lab, argv: strings.Fields(cmd), env: env})
	}
	devnull, _ := os.OpenFile("/dev/null", os.O_WRONLY, 0)
	for i := 0; i < n+5; i++ {
		for _, r := range runs {
			t := time.Now()
			pid, err := syscall.ForkExec(r.argv[0], r.argv, &syscall.ProcAttr{Env: r.env, Files: []uintptr{0, devnull.Fd(), 2}})
			if err != nil {
				panic(err)
			}
			var ws syscall.WaitStatus
			var ru syscall.Rusage
			syscall.Wait4(pid, &ws, 0, &ru)
			w := time.Since(t)
			if ws.ExitStatus() != 0 {
				panic(r.label + " failed")
			}
			if i < 5 {
				continue
			}
			r.wall = append(r.wall, float64(w.Microseconds())/1000)
			r.cpu = append(r.cpu, float64(ru.Utime.Nano()+ru.Stime.Nano())/1e6)
			r.flt = append(r.flt, float64(ru.Minflt))
			r.vcs = append(r.vcs, float64(ru.Nvcsw))
			r.ivcs = append(r.ivcs, float64(ru.Nivcsw))
		}
	}
	la, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("rounds %d, load after: %s", n, la)
	fmt.Printf("%-14s %9s %9s %9s %9s %7s %6s\n", "binary", "wall p50", "wall mean", "cpu p50", "cpu mean", "minflt", "vcsw")
	for _, r := range runs {
		fmt.Printf("%-14s %9.2f %9.2f %9.2f %9.2f %7.1f %6.1f\n", r.label, med(r.wall), mean(r.wall), med(r.cpu), mean(r.cpu), mean(r.flt), mean(r.vcs))
	}
}
func med(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
func mean(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t / float64(len(v))
}
