package proto

// Bounds used by the protocol. They live in one place so that the kernel,
// clients and tests agree on them.
const (
	// MaxFrame is the largest accepted frame in bytes, excluding the
	// terminating newline (16 MiB).
	MaxFrame = 16 << 20

	// ReadBufferSize is the read buffer a Reader holds without charging
	// it (see Reader.SetCharge) and keeps between frames. The buffer
	// starts at InitialReadBuffer and grows on demand up to maxLine+1
	// bytes and never beyond.
	ReadBufferSize = 64 << 10

	// InitialReadBuffer is the buffer a Reader starts with, so that a
	// connection that sends little costs little.
	InitialReadBuffer = 4 << 10

	// DefaultOutboxCapacity is the number of frames an Outbox queues when
	// NewOutbox is given a non-positive capacity.
	DefaultOutboxCapacity = 256

	// MaxOutboxBytes bounds the bytes queued in one Outbox. A frame that
	// would exceed it is refused with ErrOutboxFull, except that an empty
	// queue always accepts one frame.
	MaxOutboxBytes = 64 << 20

	// MaxWireDepth is the deepest nesting of wire values (a list inside a
	// list counts two) that DecodeWire accepts and encoders produce.
	MaxWireDepth = 512

	// maxJSONDepth bounds raw JSON nesting while decoding a wire value: a
	// table cell sits three JSON levels below its table.
	maxJSONDepth = 3*MaxWireDepth + 3

	// MaxFrameDepth is the deepest JSON nesting a frame may have: room for
	// a wire value at its own bound inside an envelope and its params. A
	// deeper request, valid JSON or not past the bound, is refused with
	// CodeInvalidRequest (its id echoed, the connection kept) before any
	// decoder sees it, so no decoder recurses deeper than this; the Go
	// client applies the same bound to what a kernel sends.
	MaxFrameDepth = maxJSONDepth + 16

	// writerRetainLimit is the largest encode buffer a Writer keeps
	// between frames; a bigger one is released after use.
	writerRetainLimit = 1 << 20
)
