package syntax

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DecodeError reports JSON that is not a valid ast_version 2 program. Path
// locates the offending value, such as `stmts[0].x.args[1].value` ("" for
// the document itself); Reason says what is wrong with it.
type DecodeError struct {
	Path   string
	Reason string
}

func (e *DecodeError) Error() string {
	if e.Path == "" {
		return "decode ast: " + e.Reason
	}
	return "decode ast at " + e.Path + ": " + e.Reason
}

// UnmarshalProgram decodes the JSON form written by MarshalProgram. It is
// strict: unknown kinds and fields, missing fields, duplicate fields, wrong
// JSON types, unknown operators and argument kinds, and spans that are
// negative or end before they start are errors. Fields may come in any
// order. The error, when non-nil, is a *DecodeError.
func UnmarshalProgram(data []byte) (prog *Program, err error) {
	d := &dec{src: string(data)}
	d.nodes = make([]jnode, 0, estimateValues(d.src))
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(decodeBailout)
			if !ok {
				panic(r)
			}
			prog, err = nil, b.err
		}
	}()
	root := d.scanValue(0, "", rootElem)
	d.skipSpace()
	if d.pos != len(d.src) {
		d.failf("invalid character %q after the top-level value at byte %d", d.src[d.pos], d.pos)
	}
	return d.program(root), nil
}

// estimateValues guesses the number of JSON values in src to size the node
// slice: most values follow a ':' or a ','. The guess is capped so that an
// input of separators alone cannot reserve much more than its own size.
func estimateValues(src string) int {
	n := strings.Count(src, ":") + strings.Count(src, ",") + 1
	return min(n, len(src)/2+1, maxDecodeValues)
}

// dec holds the scanned JSON tree and the path to the value being decoded.
type dec struct {
	src   string
	pos   int
	nodes []jnode
	path  []pathSeg
	tail  string // a last path key that has no node of its own (failKey)
	depth int    // AST nodes being decoded, one inside the next
	count int    // AST nodes decoded so far
}

// pathSeg is one step of a DecodeError path: the array index idx, or when
// idx is negative the key of the member node. It holds no pointers, so
// pushing one costs no write barrier.
type pathSeg struct {
	node int32
	idx  int32
}

type decodeBailout struct{ err *DecodeError }

func (d *dec) pushMember(n int32) { d.path = append(d.path, pathSeg{node: n, idx: -1}) }
func (d *dec) pushIndex(i int)    { d.path = append(d.path, pathSeg{idx: int32(i)}) }
func (d *dec) pop()               { d.path = d.path[:len(d.path)-1] }

// failKey fails at the member k of the current value.
func (d *dec) failKey(k, format string, args ...any) {
	d.tail = k
	d.failf(format, args...)
}

// failf abandons decoding with a DecodeError at the current path.
func (d *dec) failf(format string, args ...any) {
	var b strings.Builder
	key := func(k string) {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(k)
	}
	for _, s := range d.path {
		if s.idx >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(int(s.idx)))
			b.WriteByte(']')
			continue
		}
		key(d.nodes[s.node].key)
	}
	if d.tail != "" {
		key(d.tail)
	}
	panic(decodeBailout{&DecodeError{Path: b.String(), Reason: fmt.Sprintf(format, args...)}})
}

func (d *dec) want(n int32, t jtype) {
	if got := d.nodes[n].typ; got != t {
		d.failf("expected %v, got %v", t, got)
	}
}

func (d *dec) program(n int32) *Program {
	d.want(n, jObj)
	var stmts int32 = -1
	for c := d.nodes[n].first; c >= 0; c = d.nodes[c].next {
		if k := d.nodes[c].key; k != "stmts" {
			d.failf("unknown field %q", k)
		}
		if stmts >= 0 {
			d.failf("duplicate field %q", "stmts")
		}
		stmts = c
	}
	if stmts < 0 {
		d.failf("missing field %q", "stmts")
	}
	d.pushMember(stmts)
	p := &Program{Stmts: d.stmtList(stmts)}
	d.pop()
	return p
}

// kindOf returns the "kind" member of the object n.
func (d *dec) kindOf(n int32) string {
	d.want(n, jObj)
	for c := d.nodes[n].first; c >= 0; c = d.nodes[c].next {
		if d.nodes[c].key == "kind" {
			d.pushMember(c)
			d.want(c, jStr)
			d.pop()
			return d.nodes[c].text
		}
	}
	d.failf("missing field %q", "kind")
	return ""
}

// maxFields bounds the fields of one node object, kind and span included.
const maxFields = 10

// obj is a node object whose members have been matched to its field names.
type obj struct {
	d    *dec
	keys []string
	vals [maxFields]int32
}

// fields matches the members of the node object n against keys plus "kind"
// and "span", failing on unknown, duplicate or missing members.
func (d *dec) fields(n int32, keys ...string) obj {
	return d.match(n, true, keys)
}

func (d *dec) match(n int32, spanned bool, keys []string) obj {
	o := obj{d: d, keys: keys}
	for i := range o.vals {
		o.vals[i] = -1
	}
	extra := 1 // kind
	if spanned {
		extra = 2
	}
	if len(keys)+extra > maxFields {
		d.failf("internal: too many fields")
	}
	kindAt, spanAt := len(keys), len(keys)+1
	for c := d.nodes[n].first; c >= 0; c = d.nodes[c].next {
		k := d.nodes[c].key
		i := -1
		switch {
		case k == "kind":
			i = kindAt
		case k == "span" && spanned:
			i = spanAt
		default:
			for j, name := range keys {
				if name == k {
					i = j
					break
				}
			}
		}
		if i < 0 {
			d.failf("unknown field %q", k)
		}
		if o.vals[i] >= 0 {
			d.failf("duplicate field %q", k)
		}
		o.vals[i] = c
	}
	for i, name := range keys {
		if o.vals[i] < 0 {
			d.failf("missing field %q", name)
		}
	}
	if spanned && o.vals[spanAt] < 0 {
		d.failf("missing field %q", "span")
	}
	return o
}

// at returns the value of field k and pushes it onto the path; the caller
// pops.
func (o *obj) at(k string) int32 {
	for i, name := range o.keys {
		if name == k {
			o.d.pushMember(o.vals[i])
			return o.vals[i]
		}
	}
	o.d.failf("internal: field %q not matched", k)
	return -1
}

func (o *obj) null(n int32) bool { return o.d.nodes[n].typ == jNull }

func (o *obj) str(k string) string {
	n := o.at(k)
	o.d.want(n, jStr)
	o.d.pop()
	return o.d.nodes[n].text
}

func (o *obj) boolean(k string) bool {
	n := o.at(k)
	o.d.want(n, jBool)
	o.d.pop()
	return o.d.nodes[n].b
}

func (o *obj) int64(k string) int64 {
	n := o.at(k)
	v := o.d.intValue(n)
	o.d.pop()
	return v
}

func (d *dec) intValue(n int32) int64 {
	d.want(n, jNum)
	v, err := strconv.ParseInt(d.nodes[n].text, 10, 64)
	if err != nil {
		d.failf("expected an integer in int64 range, got %s", d.nodes[n].text)
	}
	return v
}

func (o *obj) float(k string) float64 {
	n := o.at(k)
	defer o.d.pop()
	nd := o.d.nodes[n]
	switch nd.typ {
	case jStr:
		switch nd.text {
		case "+Inf":
			return math.Inf(1)
		case "-Inf":
			return math.Inf(-1)
		case "NaN":
			return math.NaN()
		}
		o.d.failf("expected a number, \"+Inf\", \"-Inf\" or \"NaN\", got %q", nd.text)
	case jNum:
		v, err := strconv.ParseFloat(nd.text, 64)
		if err != nil {
			o.d.failf("number %s out of float64 range", nd.text)
		}
		return v
	}
	o.d.failf("expected a number, got %v", nd.typ)
	return 0
}

// enum reads a string field that must be one of allowed.
func (o *obj) enum(k string, allowed ...string) string {
	n := o.at(k)
	o.d.want(n, jStr)
	s := o.d.nodes[n].text
	for _, a := range allowed {
		if s == a {
			o.d.pop()
			return a
		}
	}
	o.d.failf("unknown value %q (want one of %s)", s, strings.Join(allowed, ", "))
	return ""
}

// span reads the node's "span" as {"start","end"} with 0 <= start <= end.
func (o *obj) span() Span {
	n := o.vals[len(o.keys)+1]
	d := o.d
	d.pushMember(n)
	d.want(n, jObj)
	var sp Span
	var seen [2]bool
	for c := d.nodes[n].first; c >= 0; c = d.nodes[c].next {
		k := d.nodes[c].key
		i := 0
		switch k {
		case "start":
		case "end":
			i = 1
		default:
			d.failf("unknown field %q", k)
		}
		if seen[i] {
			d.failf("duplicate field %q", k)
		}
		seen[i] = true
		d.pushMember(c)
		v := d.intValue(c)
		if v < 0 || int64(int32(v)) != v {
			d.failf("offset %d out of range", v)
		}
		d.pop()
		if i == 0 {
			sp.Start = int32(v)
		} else {
			sp.End = int32(v)
		}
	}
	switch {
	case !seen[0]:
		d.failf("missing field %q", "start")
	case !seen[1]:
		d.failf("missing field %q", "end")
	case sp.Start > sp.End:
		d.failf("start %d after end %d", sp.Start, sp.End)
	}
	d.pop()
	return sp
}

// list calls each for every element of the array field k.
func (o *obj) list(k string, each func(i int, n int32)) {
	n := o.at(k)
	o.d.each(n, each)
	o.d.pop()
}

func (d *dec) each(n int32, fn func(i int, n int32)) {
	d.want(n, jArr)
	i := 0
	for c := d.nodes[n].first; c >= 0; c = d.nodes[c].next {
		d.pushIndex(i)
		fn(i, c)
		d.pop()
		i++
	}
}

// length is the number of elements of array field k (0 when it is not an
// array; list reports that).
func (o *obj) length(k string) int {
	for i, name := range o.keys {
		if name == k {
			return int(o.d.nodes[o.vals[i]].count)
		}
	}
	return 0
}
