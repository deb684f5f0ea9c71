package eval

import "github.com/shoalgo/shoal/internal/value"

// eventSize estimates the memory an event holds: channelEventOverhead plus
// the bytes of the strings and the slots of the containers its payload
// reaches. The walk is iterative (any depth, no copy of a container's
// items) and stops once the estimate passes limit, returning more than
// limit. Shared parts are counted each time they are reached, which only
// overestimates.
func eventSize(v value.Value, limit int64) int64 {
	const slot = 16 // one value in a list, record or table
	type frame struct {
		vals []value.Value
		i    int
	}
	n := int64(channelEventOverhead)
	stack := []frame{{vals: []value.Value{v}}}
	for len(stack) > 0 && n <= limit {
		f := &stack[len(stack)-1]
		if f.i == len(f.vals) {
			stack = stack[:len(stack)-1]
			continue
		}
		x := f.vals[f.i]
		f.i++
		n += slot
		switch x := x.(type) {
		case value.Str:
			n += int64(len(x))
		case value.Bytes:
			n += int64(len(x))
		case value.Path:
			n += int64(len(x))
		case *value.List:
			stack = append(stack, frame{vals: x.Items})
		case *value.Record:
			for _, k := range x.Keys() {
				n += int64(len(k))
			}
			stack = append(stack, frame{vals: x.Values()})
		case *value.Table:
			for c := range x.Cols {
				n += int64(len(x.Cols[c]))
				stack = append(stack, frame{vals: x.Data[c]})
			}
		case *value.Outcome:
			n += 64 + int64(len(x.Cmd)+len(x.Stdout)+len(x.Stderr))
			if x.Out != nil {
				stack = append(stack, frame{vals: []value.Value{x.Out}})
			}
		case *value.Error:
			n += int64(len(x.Code) + len(x.Msg) + len(x.Hint))
			for _, p := range []value.Value{x.Status, x.Stderr} {
				if p != nil {
					stack = append(stack, frame{vals: []value.Value{p}})
				}
			}
		}
	}
	return n
}
