package namespaces

import "github.com/pelletier/go-toml/v2/unstable"

// tomlPath names one table or key of a TOML document: its key under the
// table or key whose position is parent (tomlRoot for the document's
// top level). Paths are named by their parent's position rather than
// spelt out whole, so a long header or dotted key costs its own bytes
// once, not once more for every key beneath it.
type tomlPath struct {
	parent int
	key    string
}

// tomlRoot is the parent position of the document's top-level keys;
// tomlUnknown that of the keys under a key the order does not know
// (none of them is known either).
const (
	tomlRoot    = -1
	tomlUnknown = -2
)

// tomlOrder maps every table and key path of a TOML document to the
// position of its first appearance, so a decoded table's keys can be put
// back in document order. Headers and dotted keys give each of their
// prefixes a position; the keys of an inline table in an array share the
// array's path, as its elements do in tomlData. The document must
// already have decoded without error, and its nesting must be within
// maxDepth (tomlScan says so first): the walk of inline values recurses
// no deeper than that.
func tomlOrder(text string) map[tomlPath]int {
	order := make(map[tomlPath]int)
	var p unstable.Parser
	p.Reset([]byte(text))
	table := tomlRoot
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = tomlKeyPath(order, tomlRoot, e.Key())
		case unstable.KeyValue:
			path := tomlKeyPath(order, table, e.Key())
			tomlValueOrder(order, path, e.Value(), 0)
		}
	}
	return order
}

// tomlKeyPath records each part of the key under the path at position
// parent and returns the position of the whole key.
func tomlKeyPath(order map[tomlPath]int, parent int, it unstable.Iterator) int {
	for it.Next() {
		k := tomlPath{parent, string(it.Node().Data)}
		pos, seen := order[k]
		if !seen {
			pos = len(order)
			order[k] = pos
		}
		parent = pos
	}
	return parent
}

// tomlValueOrder records the keys of the inline tables in n, a value at
// the path at position path, depth levels inside its key.
func tomlValueOrder(order map[tomlPath]int, path int, n *unstable.Node, depth int) {
	if depth > maxDepth {
		return
	}
	switch n.Kind {
	case unstable.InlineTable:
		for it := n.Children(); it.Next(); {
			kv := it.Node()
			if kv.Kind != unstable.KeyValue {
				continue
			}
			tomlValueOrder(order, tomlKeyPath(order, path, kv.Key()), kv.Value(), depth+1)
		}
	case unstable.Array:
		for it := n.Children(); it.Next(); {
			tomlValueOrder(order, path, it.Node(), depth+1)
		}
	}
}
