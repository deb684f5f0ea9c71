package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/proto"
)

type parseParams struct {
	Src *string `json:"src"`
}

type parseResult struct {
	ASTVersion int             `json:"ast_version"`
	AST        json.RawMessage `json:"ast"`
}

// parseErrorData is the data of a PARSE_ERROR.
type parseErrorData struct {
	Span       proto.Span `json:"span"`
	Hint       *string    `json:"hint"`
	Incomplete bool       `json:"incomplete"`
}

func handleParse(_ context.Context, c *call) (any, error) {
	var p parseParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Src == nil {
		return nil, proto.NewError(proto.CodeInvalidParams, `invalid params: "src" is required`, nil)
	}
	ps := getParser()
	defer putParser(ps)
	prog, err := ps.Parse(*p.Src, syntax.ParseOptions{})
	if err != nil {
		return nil, parseError(err)
	}
	ast, err := syntax.MarshalProgram(prog)
	if err != nil {
		return nil, err
	}
	return &parseResult{ASTVersion: ASTVersion, AST: ast}, nil
}

// parsers pools keeping parsers for the methods that read a tree and drop
// it (parse, explain): their trees reuse memory, so those requests leave
// nothing for the garbage collector. exec parses with syntax.Parse, since
// closures it defines keep their nodes for the life of the session.
var parsers = sync.Pool{New: func() any { return new(syntax.Parser) }}

func getParser() *syntax.Parser { return parsers.Get().(*syntax.Parser) }

// putParser ends the life of ps's last tree and pools ps.
func putParser(ps *syntax.Parser) {
	ps.Reset()
	parsers.Put(ps)
}

// parseError turns a parser error into PARSE_ERROR with span, hint and
// whether more input could complete the source.
func parseError(err error) error {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return proto.NewError(proto.CodeParseError, err.Error(), nil)
	}
	d := parseErrorData{Span: proto.Span{Start: int(se.Span.Start), End: int(se.Span.End)}, Incomplete: se.Incomplete}
	if se.Hint != "" {
		h := se.Hint
		d.Hint = &h
	}
	return proto.NewError(proto.CodeParseError, se.Msg, d)
}
