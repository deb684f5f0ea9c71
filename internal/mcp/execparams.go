package mcp

import (
	"encoding/json"
	"strconv"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// shoal_exec's params to the kernel without reflection (issue 24, the
// twelfth round). toolExec handed the kernel client a proto.ExecParams,
// which the client encoded by json.Marshal (reflection, ~2% of the
// facade's CPU a call, before the exec is sent). execParams writes the
// same bytes for the params toolExec sends and hands the client those,
// which it sends as they are (compacted, as any raw params: a no-op on
// these). A Display, which toolExec never sets, is left to json.Marshal.
// TestExecParamsMatchMarshal and FuzzExecParams hold the two to the same
// bytes.

// execParams is json.Marshal(p), or ok false when p holds a Display.
func execParams(p *proto.ExecParams) (raw json.RawMessage, ok bool) {
	if p.Display != nil {
		return nil, false
	}
	b := make([]byte, 0, 64+len(p.Src))
	b = append(b, `{"src":`...)
	b = appendJSONString(b, p.Src, true)
	if p.Mode != "" {
		b = append(b, `,"mode":`...)
		b = appendJSONString(b, p.Mode, true)
	}
	if p.Position != "" {
		b = append(b, `,"position":`...)
		b = appendJSONString(b, p.Position, true)
	}
	if p.Async {
		b = append(b, `,"async":true`...)
	}
	if p.Background {
		b = append(b, `,"background":true`...)
	}
	if p.TimeoutMS != 0 {
		b = append(b, `,"timeout_ms":`...)
		b = strconv.AppendInt(b, p.TimeoutMS, 10)
	}
	if e := p.Elide; e != nil {
		b = append(b, `,"elide":{`...)
		sep := ""
		for _, m := range [...]struct {
			name string
			n    int
		}{{"max_bytes", e.MaxBytes}, {"max_rows", e.MaxRows}, {"max_items", e.MaxItems}} {
			if m.n != 0 {
				b = append(b, sep...)
				b = append(b, '"')
				b = append(b, m.name...)
				b = append(b, `":`...)
				b = strconv.AppendInt(b, int64(m.n), 10)
				sep = ","
			}
		}
		b = append(b, '}')
	}
	if p.PlanRef != "" {
		b = append(b, `,"plan_ref":`...)
		b = appendJSONString(b, p.PlanRef, true)
	}
	if p.Watch {
		b = append(b, `,"watch":true`...)
	}
	return append(b, '}'), true
}

// execCallParams is what toolExec hands the kernel client for p: its
// encoding when execParams writes it, compact as json.Marshal's, which
// the client frames as it is (client.Encoded), else p for json.Marshal.
func execCallParams(p proto.ExecParams) any {
	if raw, ok := execParams(&p); ok {
		return client.Encoded(raw)
	}
	return p
}
