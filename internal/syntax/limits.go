package syntax

// Bounds on what a source unit or an AST document may hold, set in one
// place. Every tree Parse or UnmarshalProgram returns has at most MaxNodes
// nodes and is at most MaxDepth nodes deep, so that code walking a tree
// recursively (the JSON encoder, the evaluator, plan derivation,
// completion) uses a bounded amount of stack. A tree's depth counts every
// node on its longest root-to-leaf path: statements, expressions, patterns
// and the parts that carry a "kind" in the JSON form (arguments, record
// fields, match arms, parameters, types, string parts, command calls and
// arguments, redirects, environment prefixes), so the JSON form of a tree
// nests at most about twice as deep.
const (
	// MaxDepth is the deepest tree a source or AST document may produce. A
	// left-associative chain counts one level per operator (`1 + 1 + …`),
	// as does a postfix chain (`x.a.b…`, `f()()…`) and an `else if`
	// chain. Past it the parser fails with "nested too deeply". The JSON
	// of such a tree nests 2*MaxDepth+2 levels, and 2 more inside a
	// request or an answer: that stays within the protocol's frame depth
	// bound (proto.MaxFrameDepth, 1,555), so any tree parse returns can be
	// received by a client and sent back to explain.
	MaxDepth = 750

	// MaxNodes is the most nodes one source or AST document may produce,
	// checked as nodes are built, so parse work and memory are bounded
	// (about 50 MB of tree at most). Past it the parser fails with
	// "too many syntax nodes".
	MaxNodes = 1_000_000

	// maxNesting bounds the parser's own recursion: brackets, blocks,
	// commands in parentheses and `else if` each nest the parse functions.
	maxNesting = 500

	// maxStringNesting bounds strings inside the interpolation holes of
	// strings (`"{"{…}"}"`): the lexer scans a nested string once for
	// each string around it.
	maxStringNesting = 6

	// maxTypeNesting bounds type arguments (`list<list<…>>`).
	maxTypeNesting = 32

	// maxSource is the size limit of a parsed source unit: span offsets are
	// 32-bit.
	maxSource = 1<<31 - 1

	// maxDecodeDepth bounds raw JSON nesting in UnmarshalProgram: a node
	// nests at most two JSON levels below its parent (a member object, or
	// an element of a member array), and the program adds two.
	maxDecodeDepth = 2*MaxDepth + 2

	// maxDecodeValues bounds the JSON values UnmarshalProgram scans (about
	// 56 bytes each while decoding).
	maxDecodeValues = 1 << 20
)

// Bounds of Tokens (tokens.go), the highlighter's classification.
const (
	// MaxTokenSource is the longest source Tokens classifies; a longer one
	// is one plain token (a line editor highlights what a person types).
	MaxTokenSource = 256 << 10

	// maxTokenNesting bounds the brackets Tokens tracks; deeper ones keep
	// the mode they are in.
	maxTokenNesting = 64
)
