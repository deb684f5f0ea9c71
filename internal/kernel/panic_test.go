package kernel

import (
	"context"
	"testing"

	"github.com/shoalgo/shoal/proto"
)

func TestHandlerPanicAnswersInternalError(t *testing.T) {
	const name = "test.panic"
	methods[name] = &method{handle: func(context.Context, *call) (any, error) { panic("boom") }}
	defer delete(methods, name)
	k := startKernel(t)
	c := k.dial(t)
	c.fail(name, nil, proto.CodeInternalError)
	c.ok("kernel.info", nil, nil) // the connection and kernel survive
}
