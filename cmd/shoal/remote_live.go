package main

// Live output for `shoal --kernel`: each exec is sent watched
// (client.ExecWatch), so the output events of its task arrive while it
// runs and are printed as they come; the render event read after the
// answer then supplies only what the events did not (output printed
// faster than the kernel publishes it, or events not yet delivered when
// the exec ended).

import (
	"encoding/base64"
	"encoding/json"
	"io"

	"github.com/shoalgo/shoal/client"
)

// liveOutput prints one exec's output events as they arrive.
type liveOutput struct {
	w   io.Writer
	end int64 // the output offset past the last byte printed
}

// event prints the output an event of the exec's task carries.
func (l *liveOutput) event(ev client.Event) {
	var o struct {
		Kind   string  `json:"kind"`
		Offset int64   `json:"offset"`
		Text   *string `json:"text"`
		Base64 *string `json:"base64"`
	}
	if json.Unmarshal(ev.Payload, &o) != nil || o.Kind != "output" {
		return
	}
	var b []byte
	switch {
	case o.Text != nil:
		b = []byte(*o.Text)
	case o.Base64 != nil:
		var err error
		if b, err = base64.StdEncoding.DecodeString(*o.Base64); err != nil {
			return
		}
	}
	if len(b) == 0 {
		return
	}
	_, _ = l.w.Write(b)
	l.end = max(l.end, o.Offset+int64(len(b)))
}

// rest is what of the exec's kept output (the render event's, which
// starts at offset 0) was not printed live.
func (l *liveOutput) rest(output string) string {
	if l == nil || l.end == 0 {
		return output
	}
	if int64(len(output)) <= l.end {
		return ""
	}
	return output[l.end:]
}

// printed is how much of the output was printed live.
func (l *liveOutput) printed() int64 {
	if l == nil {
		return 0
	}
	return l.end
}
