package kernel

import (
	"time"

	"github.com/shoalgo/shoal/internal/value"
)

// displayParams are exec's optional `display`: the style its statement
// output (the render channel's text) is rendered in, so that a person's
// client shows a kernel session as the standalone shoal shows its own.
// The value answered is the same whatever they say.
type displayParams struct {
	// TimePrecisionNS is the finest unit datetimes and times show in, in
	// nanoseconds (1000000000: to the second); 0 or absent: all of it.
	TimePrecisionNS int64 `json:"time_precision_ns"`
	// FoldNames leaves out a table's `name` column that repeats its `path`.
	FoldNames bool `json:"fold_names"`
}

// style is the value.Style d asks for; nil for no display param.
func (d *displayParams) style() *value.Style {
	if d == nil {
		return nil
	}
	p := time.Duration(d.TimePrecisionNS)
	if p < 0 || p > time.Hour {
		p = 0 // out of range: the whole precision
	}
	return &value.Style{TimePrecision: p, FoldNames: d.FoldNames}
}
