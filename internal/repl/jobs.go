package repl

import (
	"bytes"
	"fmt"
)

// reportJobs shows, before a prompt, what the session's jobs wrote since
// the last one and a line for each job that has ended since, as a shell
// does: `[1] done  sleep 1; echo x`.
func reportJobs(cfg Config) {
	jr, ok := cfg.session().(JobReporter)
	if !ok {
		return
	}
	for _, r := range jr.JobReports() {
		if r.Dropped > 0 {
			fmt.Fprintf(cfg.Stderr, "[%d] (%d bytes of output dropped)\n", r.ID, r.Dropped)
		}
		if len(r.Output) > 0 {
			_, _ = cfg.Stdout.Write(r.Output)
			if !bytes.HasSuffix(r.Output, []byte("\n")) {
				_, _ = cfg.Stdout.Write([]byte("\n"))
			}
		}
		if r.Ended {
			fmt.Fprintf(cfg.Stderr, "[%d] %s  %s\n", r.ID, r.State, r.Desc)
		}
	}
}
