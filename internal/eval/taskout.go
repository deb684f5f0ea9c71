package eval

import "io"

// Task output for an embedder: a TaskHook may give a language task
// writers of its own (SetOutput) while Started runs, and then what the
// task's programs print in statement position, and what the command its
// body ends with prints, streams there as it is written (the kernel
// spools it and publishes it on the task's channel). Without them a
// task's statement output is discarded, as before.

// taskWriters is what SetOutput gave a task.
type taskWriters struct{ stdout, stderr io.Writer }

// SetOutput gives tk writers for its output: stdout and stderr receive
// what its programs print as they print it. It takes effect only when
// called from TaskHook.Started, before the task's body runs; nil writers
// leave the task as it was.
func (tk *Task) SetOutput(stdout, stderr io.Writer) {
	if stdout == nil || stderr == nil {
		return
	}
	tk.sink = &taskWriters{stdout: stdout, stderr: stderr}
}

// streams reports whether the task's output is watched (an embedder's
// writers or a job's kept output), so its body runs with its commands
// streaming rather than only captured.
func (tk *Task) streams() bool { return tk.sink != nil || tk.out != nil }

// bodyMode is the mode a task's body (or its command) runs in: mStream
// when its output is watched, so the command it ends with streams as it
// is also captured for its value; modeValue otherwise.
func (tk *Task) bodyMode() mode {
	if tk.streams() {
		return mStream
	}
	return modeValue
}

// withSink adds the embedder's writer w (nil for none) to base, a task
// thread's writer: both receive every write.
func withSink(base, w io.Writer) io.Writer {
	switch {
	case w == nil:
		return base
	case base == nil || base == io.Discard:
		return w
	}
	return io.MultiWriter(base, w)
}

// sinkWriters are the embedder's writers of tk, nil when it gave none.
func (tk *Task) sinkWriters() (stdout, stderr io.Writer) {
	if tk.sink == nil {
		return nil, nil
	}
	return tk.sink.stdout, tk.sink.stderr
}
