package kernel

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/proto"
)

// parseErrorData is the data of a PARSE_ERROR.
type parseErrorData = proto.ParseErrorData

func handleParse(ctx context.Context, c *call) (any, error) {
	src, ok := c.sourceParam("src")
	if !ok {
		var p proto.ParseParams
		if err := c.params(&p); err != nil {
			return nil, err
		}
		if p.Src == nil {
			return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "src" is required`, nil)
		}
		src = *p.Src
	}
	var answer answerFrame
	var err error
	if werr := c.withSource(ctx, func(ps *syntax.Parser) { answer, err = parseAnswer(ps, c.req, src) }); werr != nil {
		return nil, werr
	}
	if err != nil || answer == nil {
		return nil, err
	}
	return answer, nil
}

// parseAnswer parses src with ps and writes the answer frame for req:
// {"ast_version":2,"ast":AST}, or nil for a notification.
func parseAnswer(ps *syntax.Parser, req *proto.Request, src string) (answerFrame, error) {
	prog, err := ps.Parse(src, syntax.ParseOptions{})
	if err != nil {
		return nil, parseError(err)
	}
	if req.IsNotification() {
		return nil, nil
	}
	// The tree lives only until ps parses again, so the answer is written
	// now, straight into its frame.
	return buildAnswer(req, astSizeHint(src), func(b []byte, limit int) ([]byte, error) {
		b = append(b, astResultHead...)
		b, err := appendAST(b, prog, src, limit-1)
		return append(b, '}'), err
	})
}

// astResultHead opens a parse answer's result, up to its AST.
var astResultHead = `{"ast_version":` + strconv.Itoa(ASTVersion) + `,"ast":`

// astSizeHint guesses the bytes of a source's AST JSON: about 17 for each
// byte of source in scripts like the benchmark's.
func astSizeHint(src string) int { return 18*len(src) + 512 }

// appendAST appends prog's JSON, keeping b within limit bytes: an AST too
// large to answer is PARSE_ERROR, like one too large to parse.
func appendAST(b []byte, prog *syntax.Program, src string, limit int) ([]byte, error) {
	b, err := syntax.AppendProgram(b, prog, limit)
	if errors.Is(err, syntax.ErrTooLarge) {
		return b, astTooLarge(src)
	}
	return b, err
}

// astTooLarge is the PARSE_ERROR of a source whose answer would pass the
// frame limit.
func astTooLarge(src string) error {
	hint := "split the source into smaller units and send them one at a time"
	return proto.NewError(proto.CodeParseError,
		fmt.Sprintf("the source's AST is too large to answer (its JSON is over the %d-byte frame limit)", proto.MaxFrame),
		parseErrorData{Span: proto.Span{Start: 0, End: len(src)}, Hint: &hint})
}

// parseError turns a parser error into PARSE_ERROR with span, hint and
// whether more input could complete the source.
func parseError(err error) error {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return proto.NewError(proto.CodeParseError, err.Error(), nil)
	}
	// The texts are copied: a source decoded into its slot's buffer
	// (call.sourceParam) is overwritten once the slot is given back, which
	// happens before the answer is written.
	d := parseErrorData{Span: proto.Span{Start: int(se.Span.Start), End: int(se.Span.End)}, Incomplete: se.Incomplete}
	if se.Hint != "" {
		h := strings.Clone(se.Hint)
		d.Hint = &h
	}
	return proto.NewError(proto.CodeParseError, strings.Clone(se.Msg), d)
}
