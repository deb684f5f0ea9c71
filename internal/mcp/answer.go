package mcp

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/shoalgo/shoal/proto"
)

// answerHead is what result reads of a kernel answer.
type answerHead struct {
	Ref    string  `json:"ref"`
	Render *string `json:"render"`
	URI    string  `json:"uri"`
}

// readAnswer returns raw's head and raw reshaped for structuredContent:
// without its "render" member when it has a string one (the render is the
// result's text, carried once), and with a "uri" member when its ref has a
// URI and raw has none, as json.Unmarshal into answerHead, withoutMember
// and withMember give them. A kernel answer (an object of distinct plain
// member names, the head's members strings) is read in one scan, its
// members copied sorted; anything else takes the reflective path, which
// defines the result (TestReadAnswerMatchesReflection).
func readAnswer(raw json.RawMessage) (answerHead, string, json.RawMessage) {
	if h, uri, out, ok := readPlainAnswer(raw); ok {
		return h, uri, out
	}
	var h answerHead
	_ = json.Unmarshal(raw, &h)
	if h.Render != nil {
		raw = withoutMember(raw, "render")
	}
	uri := refURI(h.Ref)
	if uri != "" && h.URI == "" {
		raw = withMember(raw, "uri", uri)
	}
	return h, uri, raw
}

// member is one top-level member of an answer: its name (between its
// quotes, as the answer has it) and raw value.
type member struct {
	name []byte
	val  []byte
}

// headField is which of answerHead's members a plain member name decodes
// to, as encoding/json matches names to fields (regardless of case), or
// "".
func headField(name []byte) string {
	for _, f := range [...]string{"ref", "render", "uri"} {
		if bytes.EqualFold(name, []byte(f)) {
			return f
		}
	}
	return ""
}

// readPlainAnswer is readAnswer for a plain answer; ok is false for any
// other. The members' names are compared as the answer's bytes: no
// string is made for them (issue 24).
func readPlainAnswer(raw json.RawMessage) (h answerHead, uri string, out json.RawMessage, ok bool) {
	f := proto.ScanFrame(raw)
	if !f.Valid || f.First != '{' {
		return h, "", nil, false
	}
	var buf [8]member // an exec's answer has six
	ms := buf[:0]
	for key, val := range f.Members() {
		name := key[1 : len(key)-1]
		if !plainName(name) {
			return h, "", nil, false
		}
		if field := headField(name); field != "" {
			if string(name) != field || val[0] != '"' {
				return h, "", nil, false
			}
			s, ok := plainStringValue(val)
			if !ok && json.Unmarshal(val, &s) != nil {
				return h, "", nil, false
			}
			switch field {
			case "ref":
				h.Ref = s
			case "render":
				h.Render = &s
			case "uri":
				h.URI = s
			}
		}
		ms = append(ms, member{name, val})
	}
	slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(a.name, b.name) })
	for i := 1; i < len(ms); i++ {
		if bytes.Equal(ms[i].name, ms[i-1].name) {
			return h, "", nil, false // a repeated member: the last one wins, as reflection has it
		}
	}
	byName := func(m member, name string) int { return bytes.Compare(m.name, []byte(name)) }
	if h.Render != nil {
		i, _ := slices.BinarySearchFunc(ms, "render", byName)
		ms = slices.Delete(ms, i, i+1)
	}
	uri = refURI(h.Ref)
	if (uri == "" || h.URI != "") && h.Render == nil {
		return h, uri, raw, true
	}
	var u []byte
	if uri != "" && h.URI == "" {
		u = appendJSONString(nil, uri, true) // as json.Marshal(uri)
		if i, found := slices.BinarySearchFunc(ms, "uri", byName); found {
			ms[i].val = u // "uri": "" is replaced
		} else {
			ms = slices.Insert(ms, i, member{[]byte("uri"), u})
		}
	}
	b := make([]byte, 0, len(raw)+len(u)+8)
	b = append(b, '{')
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), m.name...), `":`...)
		// json.Compact, then json.HTMLEscape (fastanswer.go).
		var ok bool
		if b, ok = appendCompactHTML(b, m.val); !ok {
			return h, "", nil, false
		}
	}
	return h, uri, append(b, '}'), true
}

// plainName reports whether a member name (between its quotes) is
// written as it reads and encodes unchanged: printable ASCII, no escape,
// nothing encoding/json escapes in a key.
func plainName(name []byte) bool {
	for _, c := range name {
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '"' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// startedTask reads exec's answer as json.Unmarshal into
// proto.TaskStarted reads it, reporting whether the kernel handed the run
// over as a task (timed out, and a task named). An answer none of whose
// member names could decode to "task" or "timed_out" (encoding/json
// matches names as bytes.EqualFold does; a name with an escape could be
// anything) is such a task for neither, so most answers, a value's, are
// read without the reflective decode (issue 24); any other is decoded
// as before (FuzzStartedTask holds the two to the same answer).
func startedTask(raw json.RawMessage) (proto.TaskStarted, bool) {
	f := proto.ScanFrame(raw)
	if !f.Valid || f.First != '{' {
		return proto.TaskStarted{}, false
	}
	for key := range f.Members() {
		name := key[1 : len(key)-1]
		if bytes.IndexByte(name, '\\') >= 0 || bytes.EqualFold(name, []byte("task")) || bytes.EqualFold(name, []byte("timed_out")) {
			return startedTaskReflect(raw)
		}
	}
	return proto.TaskStarted{}, false
}

// startedTaskReflect is startedTask by json.Unmarshal alone.
func startedTaskReflect(raw json.RawMessage) (proto.TaskStarted, bool) {
	var s proto.TaskStarted
	if json.Unmarshal(raw, &s) != nil || !s.TimedOut || s.Task == "" {
		return proto.TaskStarted{}, false
	}
	return s, true
}

// plainStringValue is the JSON string val (valid JSON) as json.Unmarshal
// reads it, when it has no escape and is valid UTF-8 (a ref, a URI, most
// renders); ok is false otherwise.
func plainStringValue(val []byte) (string, bool) {
	if len(val) < 2 || val[0] != '"' {
		return "", false
	}
	body := val[1 : len(val)-1]
	if bytes.IndexByte(body, '\\') >= 0 || !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}
