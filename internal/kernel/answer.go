package kernel

import (
	"sync"

	"github.com/shoalgo/shoal/proto"
)

// answerFrame is a handler result that is already the whole response
// frame, built in place around a large result (see buildAnswer); reply
// queues it as it is and the buffer returns to framePool once written.
type answerFrame []byte

// maxPooledFrame is the largest frame buffer kept for reuse; a bigger one
// (a 16 MiB answer) is left to the garbage collector.
const maxPooledFrame = 1 << 20

// framePool recycles the buffers of answer frames: a parse answer is
// ~17 bytes of JSON per byte of source, and allocating (and zeroing) it
// for every request would cost more than writing it.
var framePool = sync.Pool{New: func() any { return new([]byte) }}

// buildAnswer builds the success frame for req around a result that write
// appends to dst. write must keep the buffer within limit bytes (the
// frame's bound, proto.MaxFrame, less the tail), failing with an error it
// chooses rather than growing past it.
func buildAnswer(req *proto.Request, sizeHint int, write func(dst []byte, limit int) ([]byte, error)) (answerFrame, error) {
	bp := framePool.Get().(*[]byte)
	b := *bp
	if cap(b) < sizeHint {
		b = make([]byte, 0, min(sizeHint, proto.MaxFrame+1))
	}
	b = proto.AppendResultHead(b[:0], req.ID)
	b, err := write(b, proto.MaxFrame+1-proto.ResultTailLen)
	if err != nil {
		releaseFrame(b)
		return nil, err
	}
	return answerFrame(proto.AppendResultTail(b)), nil
}

// releaseFrame returns a frame buffer to framePool once nothing refers to
// it.
func releaseFrame(b []byte) {
	if cap(b) > maxPooledFrame {
		return
	}
	b = b[:0]
	framePool.Put(&b)
}
