package namespaces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/internal/value"
	yaml "go.yaml.in/yaml/v3"
)

func yamlNamespace() *value.Namespace {
	return newNamespace("yaml", nil, map[string]func(value.Env, value.Args) (value.Value, error){
		"parse":     yamlParse,
		"stringify": yamlStringify,
	})
}

// yamlParse implements yaml.parse(text: str). Only the first document is
// read; an empty document is null.
func yamlParse(_ value.Env, a value.Args) (value.Value, error) {
	const fn = "yaml.parse"
	text, err := textArg(fn, a)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		if strings.Contains(err.Error(), "exceeded max depth") {
			return nil, tooDeep(fn, "YAML") // the scanner's own bound
		}
		return nil, parseFailure(fn, "YAML", err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return value.Nil, nil
	}
	budget := yamlBudget(&doc)
	r := yamlReader{budget: budget, limit: budget}
	d, err := r.node(doc.Content[0], 0)
	if err != nil {
		return nil, parseFailure(fn, "YAML", err)
	}
	v, err := fromData(d)
	if err != nil {
		return nil, parseFailure(fn, "YAML", err)
	}
	return v, nil
}

// yamlNodeBudget bounds how many nodes one document may produce, aliases
// expanded; yamlAliasGrowth bounds how many more than the document holds
// its aliases may add (at most as many again, and always this many), so a
// "billion laughs" document fails with too_large instead of exhausting
// memory.
const (
	yamlNodeBudget  = 1 << 20
	yamlAliasGrowth = 1 << 16
)

// yamlBudget is the node budget of doc: its own nodes, counted without
// following aliases (iteratively), and what aliases may add.
func yamlBudget(doc *yaml.Node) int {
	own := 0
	stack := []*yaml.Node{doc}
	for len(stack) > 0 && own <= yamlNodeBudget {
		n := stack[len(stack)-1]
		stack = append(stack[:len(stack)-1], n.Content...)
		own++
	}
	return min(yamlNodeBudget, 2*own+yamlAliasGrowth)
}

// yamlReader turns a yaml.Node tree into the intermediate tree, keeping
// mapping order, within a node budget.
type yamlReader struct {
	budget int // nodes left
	limit  int // the budget it started with
}

func (r *yamlReader) node(n *yaml.Node, depth int) (any, error) {
	r.budget--
	if r.budget < 0 {
		return nil, value.Errorf(value.CodeTooLarge, "the YAML document expands to more than %d nodes", r.limit).
			WithHint("aliases multiply what they refer to; expand fewer of them")
	}
	if depth > maxDepth {
		return nil, value.TooDeep("the YAML document")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return r.node(n.Content[0], depth+1)
	case yaml.AliasNode:
		return r.node(n.Alias, depth+1)
	case yaml.ScalarNode:
		return yamlScalar(n)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			d, err := r.node(c, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
		return out, nil
	case yaml.MappingNode:
		o := &value.JSONObject{}
		if err := r.mapping(o, n, depth); err != nil {
			return nil, err
		}
		return o, nil
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

// mapping adds n's pairs to o. Merge keys (<<) contribute the pairs of the
// merged mappings that o does not define itself.
func (r *yamlReader) mapping(o *value.JSONObject, n *yaml.Node, depth int) error {
	obj := objKeys{o: o}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		key, err := r.key(k, depth)
		if err != nil {
			return err
		}
		d, err := r.node(v, depth+1)
		if err != nil {
			return err
		}
		obj.set(key, d)
	}
	for _, m := range merges {
		if m.Kind == yaml.AliasNode {
			m = m.Alias
		}
		srcs := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, s := range srcs {
			if s.Kind == yaml.AliasNode {
				s = s.Alias
			}
			if s.Kind != yaml.MappingNode {
				return fmt.Errorf("line %d: merge key needs a mapping", s.Line)
			}
			sub := &value.JSONObject{}
			if err := r.mapping(sub, s, depth+1); err != nil {
				return err
			}
			for i, k := range sub.Keys {
				if obj.index(k) < 0 {
					obj.set(k, sub.Vals[i])
				}
			}
		}
	}
	return nil
}

// key renders a mapping key as a record field name.
func (r *yamlReader) key(k *yaml.Node, depth int) (string, error) {
	if k.Kind == yaml.AliasNode {
		k = k.Alias
	}
	if k.Kind == yaml.ScalarNode {
		if k.ShortTag() == "!!null" {
			return "null", nil
		}
		return k.Value, nil
	}
	d, err := r.node(k, depth+1)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(d)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// objKeys finds the keys of an object being built: by scanning while it
// is small, by a map once it is not, so a mapping of 100 000 keys is read
// in linear time.
type objKeys struct {
	o  *value.JSONObject
	at map[string]int
}

const objKeysScan = 16

func (x *objKeys) index(k string) int {
	if x.at == nil {
		if len(x.o.Keys) <= objKeysScan {
			return slices.Index(x.o.Keys, k)
		}
		x.at = make(map[string]int, 2*len(x.o.Keys))
		for i, kk := range x.o.Keys {
			x.at[kk] = i
		}
	}
	if i, ok := x.at[k]; ok {
		return i
	}
	return -1
}

// set sets key k, replacing an earlier entry (later YAML keys win).
func (x *objKeys) set(k string, v any) {
	if i := x.index(k); i >= 0 {
		x.o.Vals[i] = v
		return
	}
	if x.at != nil {
		x.at[k] = len(x.o.Keys)
	}
	x.o.Keys = append(x.o.Keys, k)
	x.o.Vals = append(x.o.Vals, v)
}

// yamlScalar resolves a scalar by its tag. Timestamps stay text, as they
// would through JSON.
func yamlScalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool", "!!int", "!!float":
		var x any
		if err := n.Decode(&x); err != nil {
			return nil, err
		}
		switch v := x.(type) {
		case bool:
			return v, nil
		case int:
			return int64(v), nil
		case int64:
			return v, nil
		case uint64:
			return value.Float(v), nil
		case float64:
			return value.Float(v), nil
		}
		return n.Value, nil
	case "!!binary":
		var b []byte
		if err := n.Decode(&b); err != nil {
			return nil, err
		}
		return string(b), nil
	}
	return n.Value, nil
}

// yamlStringify implements yaml.stringify(value) in block style.
func yamlStringify(_ value.Env, a value.Args) (value.Value, error) {
	const fn = "yaml.stringify"
	if err := arity(fn, a, 1, 1); err != nil {
		return nil, err
	}
	d, err := toData(a.Pos[0])
	if err != nil {
		return nil, err
	}
	buf := cappedBuffer{limit: value.MaxEncodedBytes}
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	err = enc.Encode(yamlNode(d))
	if err == nil {
		err = enc.Close()
	}
	if buf.over {
		return nil, value.Errorf(value.CodeTooLarge, "%s: the YAML text would pass %s", fn, value.FormatSize(value.MaxEncodedBytes)).
			WithHint("encode a part of the value at a time")
	}
	if err != nil {
		return nil, value.Errorf(value.CodeCustom, "%s: %v", fn, err)
	}
	return value.Str(buf.b.String()), nil
}

// cappedBuffer is a bytes.Buffer that refuses to grow past limit.
type cappedBuffer struct {
	b     bytes.Buffer
	limit int
	over  bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.b.Len()+len(p) > c.limit {
		c.over = true
		return 0, errTextTooLarge
	}
	return c.b.Write(p)
}

// errTextTooLarge stops an encoder whose text passed its cap.
var errTextTooLarge = errors.New("text too large")

// yamlNode builds the node for d. Scalars carry explicit tags so the
// encoder quotes strings that would otherwise read back as another type.
func yamlNode(d any) *yaml.Node {
	scalar := func(tag, v string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v}
	}
	switch x := d.(type) {
	case nil:
		return scalar("!!null", "null")
	case bool:
		return scalar("!!bool", strconv.FormatBool(x))
	case int64:
		return scalar("!!int", strconv.FormatInt(x, 10))
	case float64:
		switch {
		case math.IsNaN(x):
			return scalar("!!float", ".nan")
		case math.IsInf(x, 1):
			return scalar("!!float", ".inf")
		case math.IsInf(x, -1):
			return scalar("!!float", "-.inf")
		}
		return scalar("!!float", floatText(x))
	case string:
		n := scalar("!!str", x)
		switch {
		case strings.Contains(x, "\n"):
			n.Style = yaml.LiteralStyle
		case yaml11Bool[strings.ToLower(x)]:
			// YAML 1.1 readers take these for booleans; quote them.
			n.Style = yaml.DoubleQuotedStyle
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range x {
			n.Content = append(n.Content, yamlNode(e))
		}
		if len(x) == 0 {
			n.Style = yaml.FlowStyle
		}
		return n
	case *value.JSONObject:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for i, k := range x.Keys {
			n.Content = append(n.Content, scalar("!!str", k), yamlNode(x.Vals[i]))
		}
		if len(x.Keys) == 0 {
			n.Style = yaml.FlowStyle
		}
		return n
	}
	return scalar("!!null", "null")
}

// yaml11Bool lists the words YAML 1.1 reads as booleans.
var yaml11Bool = map[string]bool{"y": true, "yes": true, "n": true, "no": true, "on": true, "off": true}
