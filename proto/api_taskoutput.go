package proto

// TaskOutputParams are the params of task.output: the caller's task and
// the byte offset (default 0) and count (default and most MaxTaskOutputRead)
// to read of its output, both streams together.
type TaskOutputParams struct {
	Task   *string `json:"task"`
	Offset *int64  `json:"offset,omitempty"`
	Limit  *int64  `json:"limit,omitempty"`
}

// MaxTaskOutputRead is the most task.output returns in one answer, and
// what it returns when no limit is given.
const MaxTaskOutputRead = 1 << 20

// TaskOutputChunk is the result of task.output: the bytes from Offset to
// Next, as Text when they are UTF-8 and as Base64 otherwise; EOF once the
// task has ended and Next is its last byte; Dropped counts the bytes
// before the first one still retained.
type TaskOutputChunk struct {
	Task    string  `json:"task"`
	Offset  int64   `json:"offset"`
	Next    int64   `json:"next"`
	EOF     bool    `json:"eof"`
	Text    *string `json:"text,omitempty"`
	Base64  *string `json:"base64,omitempty"`
	Dropped int64   `json:"dropped"`
}

// TaskOutputEvent is the payload of an output event on a task's channel
// task.N: Offset counts the task's output bytes (both streams) before
// the chunk; the chunk is Text when UTF-8, Base64 otherwise.
type TaskOutputEvent struct {
	Kind   string  `json:"kind"` // "output"
	Stream string  `json:"stream"`
	Offset int64   `json:"offset"`
	Text   *string `json:"text,omitempty"`
	Base64 *string `json:"base64,omitempty"`
}
