package journal

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
)

// A packed row is thirteen integers, each followed by a space (parent,
// start_ns, finish_ns, finished, interrupted, effect_mask, ok, status,
// status is null, opaque, ref_n, seq, tseq), then eleven texts, each as
// its byte length, a colon and its bytes (length -1 for a NULL): kind,
// session, principal, cwd, src, head, ast, effects, verdict, outputs,
// code. packEntry writes it; migration 5 wrote it in SQL for the rows
// before it.

var errPacked = errors.New("journal: malformed packed row")

// unpackRow fills e from a packed row (all but ID), returning the
// effect mask and the outputs JSON for the caller to decode. Texts are
// substrings of p; a status is stored in *status, which e.Status then
// points at.
func unpackRow(p string, e *Entry, status *int) (mask int64, outputs string, err error) {
	return unpackRowTo(p, e, status, nil)
}

// unpackRowTo is unpackRow with the AST and effects copied into raw (nil:
// each its own allocation), or, when raw keeps them, left as texts of p
// (Entry.StoredAST, Entry.StoredEffects).
func unpackRowTo(p string, e *Entry, status *int, raw *rawArena) (mask int64, outputs string, err error) {
	// Most fields are one digit (the flags, the short texts' lengths):
	// those are read here rather than by a call to cutInt each.
	var n [13]int64
	for i := range n {
		if len(p) >= 2 && p[1] == ' ' && p[0]-'0' <= 9 {
			n[i], p = int64(p[0]-'0'), p[2:]
			continue
		}
		var ok bool
		if n[i], p, ok = cutInt(p, ' '); !ok {
			return 0, "", errPacked
		}
	}
	var t [11]string
	var null [11]bool
	for i := range t {
		var l int64
		var rest string
		if len(p) >= 2 && p[1] == ':' && p[0]-'0' <= 9 {
			l, rest = int64(p[0]-'0'), p[2:]
		} else {
			var ok bool
			if l, rest, ok = cutInt(p, ':'); !ok {
				return 0, "", errPacked
			}
		}
		if l < -1 || l > int64(len(rest)) {
			return 0, "", errPacked
		}
		p = rest
		if l == -1 {
			null[i] = true
			continue
		}
		t[i], p = p[:l], p[l:]
	}
	if p != "" {
		return 0, "", errPacked
	}
	e.Parent, e.StartNS, e.FinishNS = n[0], n[1], n[2]
	e.Finished, e.Interrupted, e.OK, e.Opaque = n[3] != 0, n[4] != 0, n[6] != 0, n[9] != 0
	if n[8] == 0 {
		*status = int(n[7])
		e.Status = status
	}
	e.RefN, e.Seq, e.TSeq = n[10], uint64(n[11]), uint64(n[12])
	e.Kind, e.Session, e.Principal, e.Cwd, e.Src, e.Head = t[0], t[1], t[2], t[3], t[4], t[5]
	if raw != nil && raw.keep {
		// Left as the row's text, for an answer (Query.Stored).
		e.stored, e.astText, e.effectsText = true, t[6], t[7]
	} else {
		if raw != nil {
			raw.reserve(len(t[6]) + len(t[7]))
		}
		if !null[6] {
			e.AST = raw.copy(t[6])
		}
		if !null[7] {
			e.Effects = raw.copy(t[7])
		}
	}
	e.Verdict, e.Code = t[8], t[10]
	return n[5], t[9], nil
}

// packEntry is e (with its effect mask and outputs JSON) packed: what the applier stores in the packed column,
// which reads fetch instead of two dozen columns.
func packEntry(e *Entry, mask int64, outputs string) string {
	b := make([]byte, 0, 160+len(e.Session)+len(e.Principal)+len(e.Cwd)+len(e.Src)+len(e.Head)+len(e.AST)+
		len(e.Effects)+len(e.Verdict)+len(outputs)+len(e.Code))
	status, statusNull := int64(0), int64(1)
	if e.Status != nil {
		status, statusNull = int64(*e.Status), 0
	}
	for _, n := range [13]int64{e.Parent, e.StartNS, e.FinishNS, b01(e.Finished), b01(e.Interrupted), mask, b01(e.OK),
		status, statusNull, b01(e.Opaque), e.RefN, int64(e.Seq), int64(e.TSeq)} {
		b = strconv.AppendInt(b, n, 10)
		b = append(b, ' ')
	}
	text := func(s string) {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	nullable := func(r json.RawMessage) {
		if r == nil {
			b = append(b, "-1:"...)
			return
		}
		text(string(r))
	}
	text(e.Kind)
	text(e.Session)
	text(e.Principal)
	text(e.Cwd)
	text(e.Src)
	text(e.Head)
	nullable(e.AST)
	nullable(e.Effects)
	text(e.Verdict)
	text(outputs)
	text(e.Code)
	return string(b)
}

func b01(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// cutInt reads the decimal integer that p holds up to the first sep and
// returns it with the text after sep. It accepts what strconv.ParseInt
// (base 10, 64 bits) accepts of that field, and ok is false where
// ParseInt fails or p has no sep. Up to 19 digits cannot overflow a
// uint64 and are summed here, then checked against int64's range; a
// longer field (leading zeros) goes to ParseInt. (strconv's ParseInt was
// most of reading a row's thirteen integers, and a start or finish time
// in nanoseconds has 19 digits.)
func cutInt(p string, sep byte) (n int64, rest string, ok bool) {
	i, neg := 0, false
	if i < len(p) && (p[i] == '-' || p[i] == '+') {
		neg = p[i] == '-'
		i++
	}
	digits := i
	var u uint64
	for ; i < len(p); i++ {
		c := p[i]
		if c == sep {
			break
		}
		if c < '0' || c > '9' {
			return 0, "", false
		}
		u = u*10 + uint64(c-'0') // wraps past 19 digits; recomputed below
	}
	if i == len(p) || i == digits {
		return 0, "", false
	}
	if i-digits > 19 {
		v, err := strconv.ParseInt(p[:i], 10, 64)
		return v, p[i+1:], err == nil
	}
	switch {
	case !neg && u <= math.MaxInt64:
		return int64(u), p[i+1:], true
	case neg && u <= 1<<63:
		return int64(-u), p[i+1:], true // -(1<<63) wraps to itself
	}
	return 0, "", false
}
