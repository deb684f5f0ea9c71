package proto

import (
	"encoding/base64"
	"math"
	"strconv"
	"time"
)

// DecodeWire parses data as one tagged wire value and checks its shape
// strictly: every object needs a known `$` tag, the tag's required members
// with the right JSON types, and no other members; base64 must be standard
// and padded; datetimes RFC 3339 with an offset; table columns exactly n
// cells. Failures are *WireError values whose Err is one of the sentinel
// errors (ErrUnknownTag, ErrColumnLength, ErrBadBase64, ...).
func DecodeWire(data []byte) (Value, error) {
	n, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	return decodeValue(&n, 0)
}

// ValidateWire reports whether data is a well-formed wire value; see
// DecodeWire for the rules.
func ValidateWire(data []byte) error {
	_, err := DecodeWire(data)
	return err
}

func shapeErr(detail string) error { return &WireError{Err: ErrBadShape, Detail: detail} }

// knownMembers lists, per tag, the members a tagged object may carry: a
// switch over static slices, where a map literal would be built by a
// package initialiser at every start of every binary.
func knownMembers(tag Tag) ([]string, bool) {
	switch tag {
	case TagNull:
		return nil, true
	case TagBool, TagInt, TagFloat, TagStr, TagBytes, TagSize, TagDuration, TagDateTime, TagTime, TagList, TagRecord:
		return membersV, true
	case TagPath:
		return membersPath, true
	case TagTable:
		return membersTable, true
	case TagOutcome:
		return membersOutcome, true
	case TagError:
		return membersError, true
	case TagGlob:
		return membersGlob, true
	case TagRegex:
		return membersRegex, true
	case TagRange:
		return membersRange, true
	case TagTask:
		return membersTask, true
	case TagClosure, TagCmd:
		return membersClosure, true
	case TagStream:
		return membersStream, true
	case TagSecret:
		return membersSecret, true
	case TagRef:
		return membersRef, true
	}
	return nil, false
}

var (
	membersV       = []string{"v"}
	membersPath    = []string{"v", "raw"}
	membersTable   = []string{"cols", "n"}
	membersOutcome = []string{"status", "ok", "signal", "out", "err", "dur_ns", "pid", "cmd", "span"}
	membersError   = []string{"code", "msg", "span", "hint", "stderr"}
	membersGlob    = []string{"pattern", "hidden"}
	membersRegex   = []string{"src"}
	membersRange   = []string{"start", "end", "inclusive"}
	membersTask    = []string{"id", "done"}
	membersClosure = []string{"repr"}
	membersStream  = []string{"label"}
	membersSecret  = []string{"name"}
	membersRef     = []string{"uri", "of", "n", "cols", "preview", "render_head"}
)

// checkMembers rejects a member outside known ("$" is always allowed).
func checkMembers(obj []member, known []string) error {
next:
	for _, m := range obj {
		if m.key == "$" {
			continue
		}
		for _, k := range known {
			if m.key == k {
				continue next
			}
		}
		return shapeErr("unknown member " + quoteKey(m.key))
	}
	return nil
}

// fields gives typed access to one object's members.
type fields []member

func (f fields) get(key string) *node {
	for i := range f {
		if f[i].key == key {
			return &f[i].val
		}
	}
	return nil
}

func (f fields) need(key string, kind byte) (*node, error) {
	n := f.get(key)
	if n == nil {
		return nil, shapeErr("missing member " + strconv.Quote(key))
	}
	if n.kind != kind {
		return nil, &WireError{Path: "." + key, Err: ErrBadShape,
			Detail: "expected " + (&node{kind: kind}).kindName() + ", got " + n.kindName()}
	}
	return n, nil
}

func (f fields) str(key string) (string, error) {
	n, err := f.need(key, 's')
	if err != nil {
		return "", err
	}
	return n.s, nil
}

// optStr reads an optional string member; absent is "".
func (f fields) optStr(key string) (string, error) {
	if f.get(key) == nil {
		return "", nil
	}
	return f.str(key)
}

func (f fields) boolean(key string) (bool, error) {
	n, err := f.need(key, 'b')
	if err != nil {
		return false, err
	}
	return n.b, nil
}

func (f fields) int(key string) (int64, error) {
	n, err := f.need(key, 'n')
	if err != nil {
		return 0, err
	}
	v, err := parseInt(n.s)
	return v, within(err, "."+key)
}

// nullableInt reads a required member that is an integer or null.
func (f fields) nullableInt(key string) (*int64, error) {
	if n := f.get(key); n != nil && n.kind == 'z' {
		return nil, nil
	}
	v, err := f.int(key)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

func (f fields) value(key string, depth int) (Value, error) {
	n := f.get(key)
	if n == nil {
		return nil, shapeErr("missing member " + strconv.Quote(key))
	}
	v, err := decodeValue(n, depth+1)
	return v, within(err, "."+key)
}

func (f fields) optValue(key string, depth int) (Value, error) {
	if f.get(key) == nil {
		return nil, nil
	}
	return f.value(key, depth)
}

func (f fields) span(key string) (*Span, error) {
	n := f.get(key)
	if n == nil {
		return nil, nil
	}
	if n.kind != 'o' {
		return nil, &WireError{Path: "." + key, Err: ErrBadShape, Detail: "span must be an object"}
	}
	sf := fields(n.obj)
	start, err := sf.int("start")
	if err == nil {
		var end int64
		end, err = sf.int("end")
		if err == nil {
			err = checkMembers(n.obj, []string{"start", "end"})
		}
		if err == nil && (start < 0 || end < start || end > math.MaxInt32) {
			err = shapeErr("span must satisfy 0 <= start <= end")
		}
		if err == nil {
			return &Span{Start: int(start), End: int(end)}, nil
		}
	}
	return nil, within(err, "."+key)
}

func decodeValue(n *node, depth int) (Value, error) {
	if depth > MaxWireDepth {
		return nil, &WireError{Err: ErrTooDeep}
	}
	if n.kind != 'o' {
		return nil, shapeErr("expected a tagged object, got " + n.kindName())
	}
	f := fields(n.obj)
	tn := f.get("$")
	if tn == nil {
		return nil, shapeErr(`missing "$" tag`)
	}
	if tn.kind != 's' {
		return nil, &WireError{Err: ErrUnknownTag, Detail: `"$" must be a string`}
	}
	tag := Tag(tn.s)
	known, ok := knownMembers(tag)
	if !ok {
		return nil, &WireError{Err: ErrUnknownTag, Detail: quoteKey(tn.s)}
	}
	if err := checkMembers(n.obj, known); err != nil {
		return nil, err
	}
	return decodeTagged(tag, f, depth)
}

func decodeTagged(tag Tag, f fields, depth int) (Value, error) {
	switch tag {
	case TagNull:
		return Null{}, nil
	case TagBool:
		b, err := f.boolean("v")
		return Bool(b), err
	case TagInt:
		n, err := f.int("v")
		return Int(n), err
	case TagFloat:
		return decodeFloat(f)
	case TagStr:
		s, err := f.str("v")
		return Str(s), err
	case TagBytes:
		s, err := f.str("v")
		if err != nil {
			return nil, err
		}
		b, err := decodeBase64(s)
		return Bytes(b), within(err, ".v")
	case TagPath:
		return decodePath(f)
	case TagSize:
		n, err := f.int("v")
		if err == nil && n < 0 {
			err = &WireError{Path: ".v", Err: ErrBadNumber, Detail: "size must not be negative"}
		}
		return Size(n), err
	case TagDuration:
		n, err := f.int("v")
		return Duration(n), err
	case TagDateTime:
		s, err := f.str("v")
		if err != nil {
			return nil, err
		}
		t, err := ParseDateTime(s)
		return DateTime{T: t}, within(err, ".v")
	case TagTime:
		s, err := f.str("v")
		if err != nil {
			return nil, err
		}
		ns, err := ParseTimeOfDay(s)
		return Time(ns), within(err, ".v")
	case TagList:
		return decodeList(f, depth)
	case TagRecord:
		return decodeRecord(f, depth)
	case TagTable:
		return decodeTable(f, depth)
	case TagOutcome:
		return decodeOutcome(f, depth)
	case TagError:
		return decodeError(f, depth)
	case TagGlob:
		p, err := f.str("pattern")
		if err != nil {
			return nil, err
		}
		g := &Glob{Pattern: p}
		if f.get("hidden") != nil {
			g.Hidden, err = f.boolean("hidden")
		}
		return g, err
	case TagRegex:
		s, err := f.str("src")
		return &Regex{Src: s}, err
	case TagRange:
		return decodeRange(f)
	case TagTask:
		id, err := f.str("id")
		if err != nil {
			return nil, err
		}
		done, err := f.boolean("done")
		return &Task{ID: id, Done: done}, err
	case TagClosure:
		s, err := f.str("repr")
		return &Closure{Repr: s}, err
	case TagStream:
		s, err := f.str("label")
		return &Stream{Label: s}, err
	case TagSecret:
		s, err := f.str("name")
		return &Secret{Name: s}, err
	case TagCmd:
		s, err := f.str("repr")
		return &Cmd{Repr: s}, err
	case TagRef:
		return decodeRef(f, depth)
	}
	return nil, &WireError{Err: ErrUnknownTag, Detail: quoteKey(string(tag))}
}

func decodeFloat(f fields) (Value, error) {
	n := f.get("v")
	if n != nil && n.kind == 's' {
		switch n.s {
		case "nan":
			return Float(math.NaN()), nil
		case "inf":
			return Float(math.Inf(1)), nil
		case "-inf":
			return Float(math.Inf(-1)), nil
		}
		return nil, &WireError{Path: ".v", Err: ErrBadNumber, Detail: `float string must be "nan", "inf" or "-inf"`}
	}
	n, err := f.need("v", 'n')
	if err != nil {
		return nil, err
	}
	x, perr := strconv.ParseFloat(n.s, 64)
	if perr != nil || math.IsInf(x, 0) {
		return nil, &WireError{Path: ".v", Err: ErrBadNumber, Detail: "float out of range"}
	}
	return Float(x), nil
}

func decodePath(f fields) (Value, error) {
	v, err := f.str("v")
	if err != nil {
		return nil, err
	}
	p := &Path{V: v}
	if f.get("raw") != nil {
		s, err := f.str("raw")
		if err != nil {
			return nil, err
		}
		if p.Raw, err = decodeBase64(s); err != nil {
			return nil, within(err, ".raw")
		}
	}
	return p, nil
}

func decodeList(f fields, depth int) (Value, error) {
	n, err := f.need("v", 'a')
	if err != nil {
		return nil, err
	}
	l := make(List, len(n.arr))
	for i := range n.arr {
		if l[i], err = decodeValue(&n.arr[i], depth+1); err != nil {
			return nil, within(err, ".v["+strconv.Itoa(i)+"]")
		}
	}
	return l, nil
}

func decodeRecord(f fields, depth int) (Value, error) {
	n, err := f.need("v", 'o')
	if err != nil {
		return nil, err
	}
	r := &Record{Keys: make([]string, len(n.obj)), Vals: make([]Value, len(n.obj))}
	for i := range n.obj {
		r.Keys[i] = n.obj[i].key
		if r.Vals[i], err = decodeValue(&n.obj[i].val, depth+1); err != nil {
			return nil, within(err, ".v"+keySeg(n.obj[i].key))
		}
	}
	return r, nil
}

func decodeTable(f fields, depth int) (Value, error) {
	cols, err := f.need("cols", 'o')
	if err != nil {
		return nil, err
	}
	rows, err := f.int("n")
	if err != nil {
		return nil, err
	}
	if rows < 0 || rows > math.MaxInt32 {
		return nil, &WireError{Path: ".n", Err: ErrBadNumber, Detail: "row count out of range"}
	}
	t := &Table{Cols: make([]string, len(cols.obj)), Data: make([][]Value, len(cols.obj)), N: int(rows)}
	for c := range cols.obj {
		m := &cols.obj[c]
		seg := ".cols" + keySeg(m.key)
		if m.val.kind != 'a' {
			return nil, &WireError{Path: seg, Err: ErrBadShape, Detail: "column must be an array"}
		}
		if len(m.val.arr) != t.N {
			return nil, &WireError{Path: seg, Err: ErrColumnLength,
				Detail: strconv.Itoa(len(m.val.arr)) + " cells, n is " + strconv.Itoa(t.N)}
		}
		t.Cols[c] = m.key
		col := make([]Value, t.N)
		for r := range m.val.arr {
			if col[r], err = decodeValue(&m.val.arr[r], depth+1); err != nil {
				return nil, within(err, seg+"["+strconv.Itoa(r)+"]")
			}
		}
		t.Data[c] = col
	}
	return t, nil
}

func decodeOutcome(f fields, depth int) (Value, error) {
	o := &Outcome{}
	var err error
	if o.Status, err = f.nullableInt("status"); err != nil {
		return nil, err
	}
	if o.Ok, err = f.boolean("ok"); err != nil {
		return nil, err
	}
	if sn := f.get("signal"); sn == nil || sn.kind != 'z' {
		s, err := f.str("signal")
		if err != nil {
			return nil, err
		}
		o.Signal = &s
	}
	if o.Out, err = f.value("out", depth); err != nil {
		return nil, err
	}
	if o.Err, err = f.value("err", depth); err != nil {
		return nil, err
	}
	if o.DurNs, err = f.int("dur_ns"); err != nil {
		return nil, err
	}
	if o.Pid, err = f.nullableInt("pid"); err != nil {
		return nil, err
	}
	if o.Cmd, err = f.str("cmd"); err != nil {
		return nil, err
	}
	if o.Span, err = f.span("span"); err != nil {
		return nil, err
	}
	return o, nil
}

func decodeError(f fields, depth int) (Value, error) {
	e := &Error{}
	var err error
	if e.Code, err = f.str("code"); err != nil {
		return nil, err
	}
	if e.Msg, err = f.str("msg"); err != nil {
		return nil, err
	}
	if e.Span, err = f.span("span"); err != nil {
		return nil, err
	}
	if e.Hint, err = f.optStr("hint"); err != nil {
		return nil, err
	}
	if e.Stderr, err = f.optValue("stderr", depth); err != nil {
		return nil, err
	}
	return e, nil
}

func decodeRange(f fields) (Value, error) {
	r := &Range{}
	var err error
	if r.Start, err = f.int("start"); err != nil {
		return nil, err
	}
	if r.End, err = f.int("end"); err != nil {
		return nil, err
	}
	if r.Inclusive, err = f.boolean("inclusive"); err != nil {
		return nil, err
	}
	return r, nil
}

func decodeRef(f fields, depth int) (Value, error) {
	r := &Ref{}
	var err error
	if r.URI, err = f.str("uri"); err != nil {
		return nil, err
	}
	if r.Of, err = f.str("of"); err != nil {
		return nil, err
	}
	if r.N, err = f.int("n"); err != nil {
		return nil, err
	}
	if r.N < 0 {
		return nil, &WireError{Path: ".n", Err: ErrBadNumber, Detail: "count must not be negative"}
	}
	if f.get("cols") != nil {
		cols, err := f.need("cols", 'o')
		if err != nil {
			return nil, err
		}
		r.Cols = make([]RefCol, len(cols.obj))
		for i, m := range cols.obj {
			if m.val.kind != 's' {
				return nil, &WireError{Path: ".cols" + keySeg(m.key), Err: ErrBadShape, Detail: "column type must be a string"}
			}
			r.Cols[i] = RefCol{Name: m.key, Type: m.val.s}
		}
	}
	if r.Preview, err = f.optValue("preview", depth); err != nil {
		return nil, err
	}
	if r.RenderHead, err = f.optStr("render_head"); err != nil {
		return nil, err
	}
	return r, nil
}

// parseInt accepts a JSON integer literal (no fraction or exponent) that
// fits in int64.
func parseInt(s string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, &WireError{Err: ErrBadNumber, Detail: "not a 64-bit integer: " + s}
	}
	return v, nil
}

// decodeBase64 accepts standard, padded base64 only.
func decodeBase64(s string) ([]byte, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, &WireError{Err: ErrBadBase64, Detail: err.Error()}
	}
	return b, nil
}

// ParseDateTime parses an RFC 3339 datetime with an explicit offset ("Z" or
// ±hh:mm), keeping the offset and fractional seconds.
func ParseDateTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || len(s) < len("2006-01-02T15:04:05Z") || s[10] != 'T' {
		return time.Time{}, &WireError{Err: ErrBadDateTime, Detail: "want RFC 3339 with offset, got " + strconv.Quote(s)}
	}
	return t, nil
}

// ParseTimeOfDay parses HH:MM:SS with an optional fraction of 1-9 digits
// and returns nanoseconds since midnight.
func ParseTimeOfDay(s string) (int64, error) {
	bad := &WireError{Err: ErrBadTime, Detail: "want HH:MM:SS[.fraction], got " + strconv.Quote(s)}
	if len(s) < 8 || s[2] != ':' || s[5] != ':' {
		return 0, bad
	}
	h, ok1 := twoDigits(s[0:2])
	m, ok2 := twoDigits(s[3:5])
	sec, ok3 := twoDigits(s[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 59 {
		return 0, bad
	}
	ns := ((h*60+m)*60 + sec) * int64(time.Second)
	if len(s) == 8 {
		return ns, nil
	}
	frac := s[8:]
	if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
		return 0, bad
	}
	var f int64
	for i := 1; i < 10; i++ {
		d := int64(0)
		if i < len(frac) {
			c := frac[i]
			if c < '0' || c > '9' {
				return 0, bad
			}
			d = int64(c - '0')
		}
		f = f*10 + d
	}
	return ns + f, nil
}

func twoDigits(s string) (int64, bool) {
	if s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return 0, false
	}
	return int64(s[0]-'0')*10 + int64(s[1]-'0'), true
}

// keySeg renders a member name as a path segment.
func keySeg(k string) string {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return "[" + quoteKey(k) + "]"
		}
	}
	if k == "" {
		return `[""]`
	}
	return "." + k
}
