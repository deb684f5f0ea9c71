package proto

// The states of a task record (TaskRecord.State). TaskCancelled,
// TaskFailed, TaskCompleted and TaskInterrupted are terminal.
const (
	TaskRunning    = "running"
	TaskCancelling = "cancelling"
	TaskCancelled  = "cancelled"
	TaskFailed     = "failed"
	TaskCompleted  = "completed"
	// TaskInterrupted: the task was running when its kernel stopped
	// (SIGTERM, SIGKILL, a crash); a kernel restarted on the same state
	// directory reports it so, its output still readable.
	TaskInterrupted = "interrupted"
)

// TaskTerminal reports whether state is a final task state.
func TaskTerminal(state string) bool {
	switch state {
	case TaskCancelled, TaskFailed, TaskCompleted, TaskInterrupted:
		return true
	}
	return false
}
