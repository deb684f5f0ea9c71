package proto

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// node is a generic JSON value that keeps object members in order, so a
// wire value can be interpreted whatever order its members arrive in.
type node struct {
	kind byte   // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	s    string // string contents or number text
	b    bool
	arr  []node
	obj  []member
}

type member struct {
	key string
	val node
}

func (n *node) kindName() string {
	switch n.kind {
	case 'o':
		return "object"
	case 'a':
		return "array"
	case 's':
		return "string"
	case 'n':
		return "number"
	case 'b':
		return "boolean"
	}
	return "null"
}

// parseJSON parses exactly one JSON value from data.
func parseJSON(data []byte) (node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseNode(dec, 0)
	if err != nil {
		return node{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return node{}, &WireError{Err: ErrSyntax, Detail: "data after the value"}
	}
	return n, nil
}

func parseNode(dec *json.Decoder, depth int) (node, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return node{}, &WireError{Err: ErrSyntax, Detail: err.Error()}
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= maxJSONDepth {
			return node{}, &WireError{Err: ErrTooDeep}
		}
		if t == '[' {
			n := node{kind: 'a'}
			for dec.More() {
				it, err := parseNode(dec, depth+1)
				if err != nil {
					return node{}, err
				}
				n.arr = append(n.arr, it)
			}
			_, err := dec.Token()
			return n, syntaxErr(err)
		}
		n := node{kind: 'o'}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return node{}, syntaxErr(err)
			}
			key, _ := kt.(string)
			val, err := parseNode(dec, depth+1)
			if err != nil {
				return node{}, err
			}
			n.obj = append(n.obj, member{key, val})
		}
		if _, err := dec.Token(); err != nil {
			return node{}, syntaxErr(err)
		}
		if err := checkUnique(n.obj); err != nil {
			return node{}, err
		}
		return n, nil
	case string:
		return node{kind: 's', s: t}, nil
	case json.Number:
		return node{kind: 'n', s: string(t)}, nil
	case bool:
		return node{kind: 'b', b: t}, nil
	case nil:
		return node{kind: 'z'}, nil
	}
	return node{}, &WireError{Err: ErrSyntax, Detail: "unexpected token"}
}

func syntaxErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &WireError{Err: ErrSyntax, Detail: err.Error()}
}

// checkUnique rejects an object with a repeated member name.
func checkUnique(ms []member) error {
	if len(ms) <= 8 {
		for i := 1; i < len(ms); i++ {
			for j := 0; j < i; j++ {
				if ms[i].key == ms[j].key {
					return &WireError{Err: ErrBadShape, Detail: "duplicate member " + quoteKey(ms[i].key)}
				}
			}
		}
		return nil
	}
	seen := make(map[string]struct{}, len(ms))
	for _, m := range ms {
		if _, dup := seen[m.key]; dup {
			return &WireError{Err: ErrBadShape, Detail: "duplicate member " + quoteKey(m.key)}
		}
		seen[m.key] = struct{}{}
	}
	return nil
}

func quoteKey(k string) string { return string(AppendString(nil, k)) }
