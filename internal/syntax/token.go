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
	switch s {
	case "let":
		return kwLet
	case "var":
		return kwVar
	case "fn":
		return kwFn
	case "alias":
		return kwAlias
	case "use":
		return kwUse
	case "export":
		return kwExport
	case "return":
		return kwReturn
	case "break":
		return kwBreak
	case "continue":
		return kwContinue
	case "if":
		return kwIf
	case "else":
		return kwElse
	case "match":
		return kwMatch
	case "for":
		return kwFor
	case "in":
		return kwIn
	case "while":
		return kwWhile
	case "try":
		return kwTry
	case "catch":
		return kwCatch
	case "with":
		return kwWith
	case "spawn":
		return kwSpawn
	case "true":
		return kwTrue
	case "false":
		return kwFalse
	case "null":
		return kwNull
	}
	return tIdent
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
