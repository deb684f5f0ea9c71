package syntax

// tokKind classifies one lexed token. The same kind set serves both lexer
// modes; some kinds only occur in one of them.
type tokKind uint8

const (
	tEOF tokKind = iota
	tNewline
	tSemi
	tComma
	tColon
	tDot
	tQDot
	tDotDot
	tDotDotEq
	tEllipsis
	tLParen
	tRParen
	tLBracket
	tRBracket
	tLBrace
	tRBrace
	tArrow
	tFatArrow
	tAssign
	tPlusEq
	tMinusEq
	tStarEq
	tSlashEq
	tEq
	tNe
	tLt
	tLe
	tGt
	tGe
	tPlus
	tMinus
	tStar
	tSlash
	tPercent
	tBang
	tAndAnd
	tOrOr
	tQQ
	tPipe
	tAmp
	tCaret
	tIdent
	tInt
	tFloat
	tSize
	tDuration
	tTime
	tStr
	tDateTime
	tRegex
	tIllegal

	// Command mode only.
	tWord
	tLongFlag
	tShortFlag
	tDashDash
	tDash
	tAppend

	// Keywords (expression mode).
	kwLet
	kwVar
	kwFn
	kwAlias
	kwUse
	kwExport
	kwReturn
	kwBreak
	kwContinue
	kwIf
	kwElse
	kwMatch
	kwFor
	kwIn
	kwWhile
	kwTry
	kwCatch
	kwWith
	kwSpawn
	kwTrue
	kwFalse
	kwNull
)

var tokNames = [...]string{
	tEOF: "EOF", tNewline: "Newline", tSemi: "Semi", tComma: "Comma",
	tColon: "Colon", tDot: "Dot", tQDot: "QuestionDot", tDotDot: "DotDot",
	tDotDotEq: "DotDotEq", tEllipsis: "Ellipsis", tLParen: "LParen",
	tRParen: "RParen", tLBracket: "LBracket", tRBracket: "RBracket",
	tLBrace: "LBrace", tRBrace: "RBrace", tArrow: "Arrow", tFatArrow: "FatArrow",
	tAssign: "Assign", tPlusEq: "PlusEq", tMinusEq: "MinusEq", tStarEq: "StarEq",
	tSlashEq: "SlashEq", tEq: "EqEq", tNe: "NotEq", tLt: "Lt", tLe: "Le",
	tGt: "Gt", tGe: "Ge", tPlus: "Plus", tMinus: "Minus", tStar: "Star",
	tSlash: "Slash", tPercent: "Percent", tBang: "Bang", tAndAnd: "AndAnd",
	tOrOr: "OrOr", tQQ: "Coalesce", tPipe: "Pipe", tAmp: "Amp", tCaret: "Caret",
	tIdent: "Ident", tInt: "Int", tFloat: "Float", tSize: "Size",
	tDuration: "Duration", tTime: "Time", tStr: "Str", tDateTime: "DateTime",
	tRegex: "Regex", tIllegal: "Illegal", tWord: "Word", tLongFlag: "LongFlag",
	tShortFlag: "ShortFlag", tDashDash: "DashDash", tDash: "Dash", tAppend: "Append",
	kwLet: "let", kwVar: "var", kwFn: "fn", kwAlias: "alias", kwUse: "use",
	kwExport: "export", kwReturn: "return", kwBreak: "break",
	kwContinue: "continue", kwIf: "if", kwElse: "else", kwMatch: "match",
	kwFor: "for", kwIn: "in", kwWhile: "while", kwTry: "try", kwCatch: "catch",
	kwWith: "with", kwSpawn: "spawn", kwTrue: "true", kwFalse: "false",
	kwNull: "null",
}

func (k tokKind) String() string {
	if int(k) < len(tokNames) && tokNames[k] != "" {
		return tokNames[k]
	}
	return "token"
}

// isKeyword reports whether k is a reserved word.
func (k tokKind) isKeyword() bool { return k >= kwLet && k <= kwNull }

// isName reports whether k can serve as a field, key or argument name.
func (k tokKind) isName() bool { return k == tIdent || k.isKeyword() }

// keywordKind maps an identifier spelling to its keyword kind, or tIdent.
func keywordKind(s string) tokKind {
	if len(s) < 2 || len(s) > 8 || s[0] < 'a' || s[0] > 'w' {
		return tIdent // no keyword is this short, long or spelled so
	}
	if e := &keywordTable[keywordSlot(s)]; e.word == s {
		return e.kind
	}
	return tIdent
}

// keywords lists every keyword and its token kind.
var keywords = [...]struct {
	word string
	kind tokKind
}{
	{"let", kwLet},
	{"var", kwVar},
	{"fn", kwFn},
	{"alias", kwAlias},
	{"use", kwUse},
	{"export", kwExport},
	{"return", kwReturn},
	{"break", kwBreak},
	{"continue", kwContinue},
	{"if", kwIf},
	{"else", kwElse},
	{"match", kwMatch},
	{"for", kwFor},
	{"in", kwIn},
	{"while", kwWhile},
	{"try", kwTry},
	{"catch", kwCatch},
	{"with", kwWith},
	{"spawn", kwSpawn},
	{"true", kwTrue},
	{"false", kwFalse},
	{"null", kwNull},
}

// keywordTable holds each keyword in the slot keywordSlot gives it, so a
// name is looked up with one comparison instead of a search; no two
// keywords share a slot (checked when the table is built).
var keywordTable = func() (t [64]struct {
	word string
	kind tokKind
}) {
	for _, k := range keywords {
		e := &t[keywordSlot(k.word)]
		if e.word != "" {
			panic("syntax: keywords " + e.word + " and " + k.word + " share a slot")
		}
		e.word, e.kind = k.word, k.kind
	}
	return t
}()

// keywordSlot hashes a name of at least two bytes by its length and its
// first and last bytes.
func keywordSlot(s string) int {
	return (len(s)*2 + int(s[0])*6 + int(s[len(s)-1])) & 63
}

// Token flags.
const (
	fGlob    uint8 = 1 << iota // word contains glob metacharacters
	fEscape                    // word contains backslash escapes
	fTriple                    // triple-quoted string
	fRawStr                    // single-quoted string
	fHasHole                   // double-quoted string with `{` or `\`
)

// token is one lexed token: its kind, flags and byte range, and for
// tIllegal the diagnostic to report. The parser copies tokens on every
// lookahead, so each struct level keeps at most four fields: the compiler
// then keeps tokens in registers instead of copying them through memory at
// every call boundary.
type token struct {
	tokSpan
	diag *diag
}

// tokSpan is a token without its diagnostic.
type tokSpan struct {
	kind       tokKind
	flags      uint8
	start, end int
}

func mkTok(k tokKind, start, end int) token {
	return token{tokSpan: tokSpan{kind: k, start: start, end: end}}
}

func mkTokF(k tokKind, flags uint8, start, end int) token {
	return token{tokSpan: tokSpan{kind: k, flags: flags, start: start, end: end}}
}

// diag is the diagnostic of an illegal token.
type diag struct {
	msg, hint  string
	incomplete bool
}
