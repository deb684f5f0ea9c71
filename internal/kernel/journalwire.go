package kernel

import (
	"strconv"

	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/proto"
)

// journalAnswer is the journal.query answer frame for entries, written by
// hand: encoding/json spent most of a page's answer re-validating and
// compacting the AST and effects of each entry (json.RawMessage), which
// the journal stored as the kernel's own compact JSON. The bytes decode
// to what json.Marshal of the entries' entryJSON gives (tested).
func journalAnswer(req *proto.Request, entries []journal.Entry) (answerFrame, error) {
	hint := 64
	for i := range entries {
		e := &entries[i]
		outs, _ := e.StoredOutputs()
		ast, _ := e.StoredAST()
		effects, _ := e.StoredEffects()
		hint += 256 + len(e.Session) + len(e.Principal) + len(e.Cwd) + len(e.Src) + len(e.AST) + len(e.Effects) + 96*len(e.Outputs) +
			len(outs) + len(ast) + len(effects)
	}
	return buildAnswer(req, hint, func(b []byte, limit int) ([]byte, error) {
		b = append(b, '[')
		for i := range entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendEntryJSON(b, &entries[i], false)
			if len(b) > limit {
				return b, errJournalAnswerTooLarge
			}
		}
		return append(b, ']'), nil
	})
}

var errJournalAnswerTooLarge = proto.NewError(proto.CodeInternalError,
	"journal: the page's entries do not fit in one frame; ask for a smaller limit", nil)

// appendEntryJSON appends e in its wire shape (entryJSON's fields, in
// order). As a journal event's payload (event), the AST is null and the
// source is cut at MaxTranscriptSrc with src_truncated, like a transcript
// event's: the event is a notice, journal.query has the entry whole.
func appendEntryJSON(b []byte, e *journal.Entry, event bool) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, e.ID, 10)
	b = append(b, `,"session":`...)
	b = proto.AppendString(b, e.Session)
	b = append(b, `,"principal":`...)
	b = proto.AppendString(b, e.Principal)
	b = append(b, `,"ts":`...)
	b = strconv.AppendInt(b, e.StartNS, 10)
	b = append(b, `,"dur_ns":`...)
	if e.Finished {
		b = strconv.AppendInt(b, e.FinishNS-e.StartNS, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"finished":`...)
	b = strconv.AppendBool(b, e.Finished)
	b = append(b, `,"interrupted":`...)
	b = strconv.AppendBool(b, e.Interrupted)
	b = append(b, `,"cwd":`...)
	b = proto.AppendString(b, e.Cwd)
	b = append(b, `,"src":`...)
	if event && len(e.Src) > MaxTranscriptSrc {
		b = proto.AppendString(b, cutUTF8(e.Src, MaxTranscriptSrc))
		b = append(b, `,"src_truncated":true`...)
	} else {
		b = proto.AppendString(b, e.Src)
	}
	b = append(b, `,"ast":`...)
	if event {
		b = append(b, "null"...)
	} else if ast, ok := e.StoredAST(); ok {
		b = appendRawJSON(b, ast, "null")
	} else {
		b = appendRawJSON(b, e.AST, "null")
	}
	b = append(b, `,"effects":`...)
	if effects, ok := e.StoredEffects(); ok {
		b = appendRawJSON(b, effects, "[]")
	} else {
		b = appendRawJSON(b, e.Effects, "[]")
	}
	b = append(b, `,"status":`...)
	if e.Status != nil {
		b = strconv.AppendInt(b, int64(*e.Status), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"ok":`...)
	b = strconv.AppendBool(b, e.OK)
	b = append(b, `,"opaque":`...)
	b = strconv.AppendBool(b, e.Opaque)
	b = append(b, `,"verdict":`...)
	b = proto.AppendString(b, e.Verdict)
	if outs, ok := e.StoredOutputs(); ok {
		// The stored text, already in this shape (journal.storedOutputs
		// checked it when the row was read).
		b = append(b, `,"outputs":`...)
		b = append(b, outs...)
		return append(b, '}')
	}
	b = append(b, `,"outputs":`...)
	b = journal.AppendOutputsJSON(b, e.Outputs)
	return append(b, '}')
}

// appendRawJSON appends raw, JSON the journal stored (checked when the row
// was written), or none when it is empty. A value that is not JSON after
// all (a database edited by hand) is appended as none rather than break
// the frame.
func appendRawJSON[T ~string | ~[]byte](b []byte, raw T, none string) []byte {
	if len(raw) == 0 || !validJSONPrefix(raw) {
		return append(b, none...)
	}
	return append(b, raw...)
}

// validJSONPrefix is a cheap check that raw is one JSON object or array as
// the kernel writes them: it starts with '{' or '[' and ends with the
// matching bracket. The journal validated the whole of it when the row
// was written; this only guards the frame against a row changed outside
// the journal.
func validJSONPrefix[T ~string | ~[]byte](raw T) bool {
	first, last := raw[0], raw[len(raw)-1]
	return (first == '{' && last == '}') || (first == '[' && last == ']')
}
