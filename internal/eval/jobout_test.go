package eval

import (
	"bytes"
	"strings"
	"testing"
)

// TestJobOutputBound: a job keeps at most MaxJobOutput bytes between two
// reports, the newest, and counts what it dropped; attached, it writes
// through and keeps nothing.
func TestJobOutputBound(t *testing.T) {
	var j jobOutput
	chunk := bytes.Repeat([]byte("x"), 1000)
	total := 0
	for total < 10*MaxJobOutput {
		_, _ = j.Write(chunk)
		total += len(chunk)
	}
	_, _ = j.Write([]byte("END"))
	total += 3
	b, dropped := j.take()
	if len(b) != MaxJobOutput || !bytes.HasSuffix(b, []byte("END")) || dropped != int64(total-MaxJobOutput) {
		t.Errorf("kept %d bytes (suffix END %v), dropped %d; want %d, true, %d", len(b), bytes.HasSuffix(b, []byte("END")), dropped, MaxJobOutput, total-MaxJobOutput)
	}
	_, _ = j.Write(bytes.Repeat([]byte("y"), 3*MaxJobOutput))
	if b, dropped := j.take(); len(b) != MaxJobOutput || dropped != int64(2*MaxJobOutput) {
		t.Errorf("one huge write: kept %d, dropped %d", len(b), dropped)
	}
	_, _ = j.Write([]byte("kept "))
	var live bytes.Buffer
	j.attach(&live)
	_, _ = j.Write([]byte("live"))
	j.detach()
	if live.String() != "kept live" {
		t.Errorf("attached writer got %q", live.String())
	}
	if b, _ := j.take(); len(b) != 0 {
		t.Errorf("kept %q while attached", b)
	}
}

// TestJobDescriptions: a job is described by what was typed, on one line
// and bounded.
func TestJobDescriptions(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"sleep 1; echo x", "sleep 1; echo x"},
		{"sleep 1\n  echo x", "sleep 1; echo x"},
		{"if true {\n  1\n}", "if true { 1 }"},
		{"a   b\t c", "a b c"},
	} {
		if got := oneLine(c.in); got != c.want {
			t.Errorf("oneLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := oneLine(strings.Repeat("é", 500)); len(got) > maxJobDesc || !strings.HasPrefix(got, "éé") {
		t.Errorf("a long description: %d bytes", len(got))
	}
}

// TestJobReports: with KeepJobOutput, a job's output and its end are
// reported once, and the reported job leaves `jobs`; spawn is not a job.
func TestJobReports(t *testing.T) {
	s := newSession(t)
	s.in.opts.KeepJobOutput = true
	closeTasks(t, s.in)
	if _, err := s.in.EvalSourceWith(t.Context(), "{ echo hi; 7 } &\nlet sp = spawn { 1 }\nwait", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	rs := s.in.JobReports()
	if len(rs) != 1 || rs[0].Desc != "echo hi; 7" || string(rs[0].Output) != "hi\n7\n" || !rs[0].Ended || rs[0].State != "done" {
		t.Fatalf("reports = %+v", rs)
	}
	if rs := s.in.JobReports(); len(rs) != 0 {
		t.Errorf("reported again: %+v", rs)
	}
	if got := s.inline("jobs.map(.command)"); got != `["spawn"]` {
		t.Errorf("jobs after the report = %s", got)
	}
}
