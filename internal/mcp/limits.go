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
	// ProgressOutputEvery is how often, at most, a long shoal_exec whose
	// caller sent a progress token sends it the output printed since the
	// last (progress_output.go): at most four output messages a second.
	ProgressOutputEvery = 250 * time.Millisecond
	// ProgressOutputBytes bounds the output one progress message carries;
	// output printed faster is skipped in the messages (and stays in the
	// task's output and the result).
	ProgressOutputBytes = 16 << 10

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

	// MaxFrameDepth bounds how deeply one incoming frame's arrays and
	// objects nest. A deeper frame is answered -32700 (with its id when
	// one can be read) before the SDK sees it: the SDK's decoder gives up
	// past 1,000 levels and takes the whole connection down with it. No
	// tool's arguments come near this; the kernel's own bound on its
	// frames (proto.MaxFrameDepth, 1,555) is above it, so whatever passes
	// here nests well within what the kernel accepts.
	MaxFrameDepth = 128

	// MaxIDBytes bounds a request id; a longer one is refused -32600.
	MaxIDBytes = 256

	// MaxNoReplyFrame bounds a frame no answer is owed for (a notification,
	// a response): nothing is charged for it (there is no answer to
	// release the charge), so a larger one is refused -32600 unread.
	MaxNoReplyFrame = 1 << 20

	// MaxInFlightBytes is the facade's budget for requests being served:
	// each request is charged its frame's size from when it is read until
	// its answer is written. A request that does not fit is answered at
	// once (a tool call with a quota_exceeded tool error, anything else
	// with a -32010 error) and the others are served as before. It is at
	// least MaxFrame, so an idle facade takes any frame.
	MaxInFlightBytes = 32 << 20

	// SoftMemoryLimit is the facade process's Go soft memory limit
	// (debug.SetMemoryLimit) unless GOMEMLIMIT says otherwise: frames
	// refused by the in-flight budget are read whole and dropped, and
	// without it the collector lets that garbage pile up to twice the
	// live heap before it runs.
	SoftMemoryLimit = 192 << 20

	// AutostartReady bounds how long an autostarted kernel may take to
	// print its ready line.
	AutostartReady = 30 * time.Second

	// ApprovalWait is how long a call held for approval waits for the
	// person at the client to answer the elicitation (--approval-wait
	// changes it); with no answer by then nothing runs.
	ApprovalWait = 5 * time.Minute
	// MaxApprovalMessage bounds the question an approval puts to the
	// person at the client; MaxApprovalEffects bounds the effects it
	// lists one by one (the rest are counted, and the plan resource has
	// them all).
	MaxApprovalMessage = 8 << 10
	MaxApprovalEffects = 16
)

// Bounds of Streamable HTTP serving (shoal-mcp --http), per bearer token
// and for the whole process. A request past a budget is refused before the
// SDK sees it: HTTP 429 (413 for a body) with a JSON-RPC error body, code
// -32010, data {code: "quota_exceeded", budget, limit}.
const (
	// MaxHTTPBody bounds one request body (the SDK's own default); a
	// larger declared length is refused at once, a longer chunked body
	// once this much has been read: HTTP 413, budget mcp_http_body.
	MaxHTTPBody = 4 << 20

	// MaxHTTPTokenRequests bounds the requests of one token served at
	// once, and MaxHTTPRequests those of all tokens together: HTTP 429,
	// budgets mcp_http_token_requests and mcp_http_requests. A request is
	// counted from when its headers are read until its answer is written
	// (an open SSE stream counts as a request).
	MaxHTTPTokenRequests = 8
	MaxHTTPRequests      = 32

	// MaxHTTPTokenBytes bounds the request bodies one token's requests
	// hold in memory at once, and MaxHTTPBytes those of all tokens: each
	// request is charged its declared length (MaxHTTPBody when chunked)
	// until it is answered. HTTP 429, budgets mcp_http_token_bytes and
	// mcp_http_bytes.
	MaxHTTPTokenBytes = 16 << 20
	MaxHTTPBytes      = 48 << 20

	// MaxHTTPTokenSessions bounds the MCP sessions (revisions before
	// 2026-07-28) one token keeps open, and MaxHTTPSessions those of all
	// tokens: a request that would open one more is HTTP 429, budgets
	// mcp_http_token_sessions and mcp_http_sessions. A session idle for
	// HTTPSessionIdle is closed.
	MaxHTTPTokenSessions = 16
	MaxHTTPSessions      = 64
	HTTPSessionIdle      = 10 * time.Minute

	// MaxHTTPTokens bounds the tokens with a kernel attachment of their
	// own; when it is reached, attachments of tokens no longer valid are
	// dropped, then the one idle longest (no request, no MCP session), and
	// a new token is refused HTTP 429 (budget mcp_http_tokens) when every
	// attachment is in use.
	MaxHTTPTokens = 32

	// MaxHTTPHeader bounds a request's header block (the server answers
	// 431 past it); HTTPHeaderWait bounds how long it may take to arrive,
	// HTTPBodyWait how long a request body may take, and HTTPIdleConn how
	// long a kept-alive connection may wait for its next request.
	MaxHTTPHeader  = 64 << 10
	HTTPHeaderWait = 10 * time.Second
	HTTPBodyWait   = 60 * time.Second
	HTTPIdleConn   = 2 * time.Minute
)
