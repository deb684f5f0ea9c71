package namespaces

import (
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// tomlOrder maps every table and key path of a TOML document (its parts
// joined by NUL, as tomlData builds them) to the position of its first
// appearance, so a decoded table's keys can be put back in document order.
// Headers and dotted keys give each of their prefixes a position; the keys
// of an inline table in an array share the array's path, as its elements
// do in tomlData. The document must already have decoded without error,
// and its nesting must be within maxDepth (tomlScan says so first): the
// walk of inline values recurses no deeper than that.
func tomlOrder(text string) map[string]int {
	order := make(map[string]int)
	var p unstable.Parser
	p.Reset([]byte(text))
	table := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = tomlKeyPath(order, "", e.Key())
		case unstable.KeyValue:
			path := tomlKeyPath(order, table, e.Key())
			tomlValueOrder(order, path, e.Value(), 0)
		}
	}
	return order
}

// tomlKeyPath records each prefix of the key under prefix and returns the
// whole path.
func tomlKeyPath(order map[string]int, prefix string, it unstable.Iterator) string {
	var b strings.Builder
	b.WriteString(prefix)
	for it.Next() {
		if b.Len() > 0 {
			b.WriteByte(0)
		}
		b.Write(it.Node().Data)
		p := b.String()
		if _, seen := order[p]; !seen {
			order[p] = len(order)
		}
	}
	return b.String()
}

// tomlValueOrder records the keys of the inline tables in n, a value at
// path, depth levels inside its key.
func tomlValueOrder(order map[string]int, path string, n *unstable.Node, depth int) {
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
