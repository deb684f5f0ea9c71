package journal

import (
	"strconv"

	"github.com/shoalgo/shoal/proto"
)

// AppendOutputsJSON appends outs as a JSON array of {"kind","hash","len"}
// objects, as journal.query answers them: the one encoding of a row's
// outputs, which storedOutputs recognises in stored text and which the
// journal writes when no kind or hash needs an escape (plainOutputsJSON).
func AppendOutputsJSON(b []byte, outs []Output) []byte {
	b = append(b, '[')
	for i, o := range outs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"kind":`...)
		b = proto.AppendString(b, o.Kind)
		b = append(b, `,"hash":`...)
		b = proto.AppendString(b, o.Hash)
		b = append(b, `,"len":`...)
		b = strconv.AppendInt(b, o.Len, 10)
		b = append(b, '}')
	}
	return append(b, ']')
}
