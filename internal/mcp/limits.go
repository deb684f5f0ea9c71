package mcp

import "time"

// Fixed bounds of the facade, in one place (docs/mcp.md lists them).
const (
	// MaxText bounds the readable text of one tool result or resource
	// read; longer text is cut at a line boundary with a marker naming
	// the URI that holds the whole value.
	MaxText = 64 << 10

	// ForegroundWait is how long a synchronous shoal_exec waits as a plain
	// exec before the kernel hands it over as a task (exec timeout_ms). A
	// call that finishes sooner answers exactly what exec answers; a
	// longer one is awaited as a task, so that a cancellation reaches it
	// through task.cancel at once.
	ForegroundWait = 250 * time.Millisecond

	// ProgressInterval is how often a long shoal_exec whose caller sent a
	// progress token is told how it is doing.
	ProgressInterval = time.Second
	// ProgressLineBytes bounds the line of output a progress message
	// quotes.
	ProgressLineBytes = 200

	// CancelSettle bounds how long a cancelled call waits for its task to
	// reach a final state before answering anyway.
	CancelSettle = 5 * time.Second

	// MaxSubscriptions bounds the kernel channels the facade subscribes
	// to on behalf of its MCP client (the kernel allows 256 a connection).
	MaxSubscriptions = 200

	// MaxInFlight bounds the tool calls and resource reads served at once;
	// one more is an error saying so (the SDK serves each request on its
	// own goroutine).
	MaxInFlight = 64

	// AutostartReady bounds how long an autostarted kernel may take to
	// print its ready line.
	AutostartReady = 30 * time.Second
)
