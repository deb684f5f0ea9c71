package kernel

import (
	"time"

	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// displayStyle is the value.Style exec's optional `display` asks for
// statement output (the render channel's text) to be rendered in, so that
// a person's client shows a kernel session as the standalone shoal shows
// its own; nil for no display param. The value answered is the same
// whatever it says. A time precision out of range is the whole precision.
func displayStyle(d *proto.Display) *value.Style {
	if d == nil {
		return nil
	}
	p := time.Duration(d.TimePrecisionNS)
	if p < 0 || p > time.Hour {
		p = 0 // out of range: the whole precision
	}
	return &value.Style{TimePrecision: p, FoldNames: d.FoldNames}
}
