package kernel

import "github.com/shoalgo/shoal/internal/value"

// approxSize estimates the memory v holds, in bytes, stopping once the
// estimate passes limit. It bounds the transcript by bytes as well as by
// count.
func approxSize(v value.Value, limit int) int {
	n := 0
	var walk func(value.Value, int)
	walk = func(v value.Value, depth int) {
		if n > limit || depth > 64 {
			return
		}
		n += 16
		switch x := v.(type) {
		case value.Str:
			n += len(x)
		case value.Bytes:
			n += len(x)
		case value.Path:
			n += len(x)
		case *value.List:
			for _, it := range x.Items {
				walk(it, depth+1)
			}
		case *value.Record:
			for i, k := range x.Keys() {
				n += len(k)
				walk(x.Values()[i], depth+1)
			}
		case *value.Table:
			for c := range x.Cols {
				for _, cell := range x.Data[c] {
					if cell != nil {
						walk(cell, depth+1)
					}
				}
			}
		case *value.Outcome:
			n += 64 + len(x.Cmd) + len(x.Stdout) + len(x.Stderr)
			if x.Out != nil {
				walk(x.Out, depth+1)
			}
		case *value.Error:
			n += len(x.Msg) + len(x.Hint)
			if x.Stderr != nil {
				walk(x.Stderr, depth+1)
			}
		}
	}
	walk(v, 0)
	return n
}
