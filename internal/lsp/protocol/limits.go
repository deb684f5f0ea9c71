package protocol

// Bounds on what an editor (or anything on the server's standard input)
// can make the server hold. docs/kernel.md's bounds table lists them.
const (
	// MaxFrameBytes bounds one message body (Content-Length). A larger
	// frame is read past without being kept and answered with an
	// INVALID_REQUEST error; the server stays up.
	MaxFrameBytes = 8 << 20
	// MaxHeaderBytes bounds the header block of one frame (every header
	// line together); the rest of a longer one is read past without being
	// kept and the frame is answered with an INVALID_REQUEST error.
	MaxHeaderBytes = 8 << 10
	// MaxJSONDepth bounds the nesting of arrays and objects in a message,
	// checked before the message is decoded.
	MaxJSONDepth = 64
)
