package mcp

// The facade reads the kernel's answers by peeking (rawio.PeekReader, as
// the kernel reads its requests since the request path's eleventh round):
// an answer's bytes stay on the socket until the client's reader next
// finds nothing to read, after the facade has written its own answer to
// stdout. Taking them off at once frees the kernel's send buffer, and the
// kernel, whose poller waits on its socket for room to write too
// (edge-triggered, as Go registers every socket), is woken for nothing by
// a synchronous wake-up from the facade's read: that wake-up was 3.1% of
// the facade's samples under issue 24's MCP row (unix_write_space), on
// the critical path between the kernel's answer and the facade's.
// Released later, the same wake-up comes once the facade's answer is on
// its way. The cost is a system call a call (the release) off that path.
// rawConn.Close takes the bytes off first: closing a Unix socket with
// bytes unread makes its peer's reads fail with ECONNRESET rather than
// reach the end of input.
//
// peekAnswers turns it off (tests, and the comparison it was measured by).
var peekAnswers = true
