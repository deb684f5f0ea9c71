package lsp

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf16"

	"github.com/shoalgo/shoal/internal/lsp/protocol"
)

// maxSignatureScan bounds how far back signature help looks for the open
// parenthesis of the call the cursor is in.
const maxSignatureScan = 4096

// signatureHelp shows the synopsis of the function or method whose
// argument list holds the position, with the argument being typed active.
// It reads the text (the source rarely parses mid-call).
func (s *Server) signatureHelp(_ context.Context, params json.RawMessage) (any, error) {
	var p protocol.TextDocumentPositionParams
	d, off, err := s.positioned(params, &p)
	if err != nil {
		return nil, err
	}
	open, active := openCall(d.text, off)
	if open < 0 {
		return nil, nil
	}
	nameEnd := open
	nameStart := nameEnd
	for nameStart > 0 && identByte(d.text[nameStart-1]) {
		nameStart--
	}
	if nameStart == nameEnd {
		return nil, nil
	}
	name := d.text[nameStart:nameEnd]
	method := nameStart > 0 && d.text[nameStart-1] == '.'
	label := s.signatureOf(d, name, method)
	if label == "" {
		return nil, nil
	}
	sig := protocol.SignatureInformation{Label: label, Parameters: paramRanges(label)}
	if h := s.help(name); h != "" {
		sig.Documentation = &protocol.MarkupContent{Kind: "markdown", Value: h}
	}
	if len(sig.Parameters) > 0 {
		active = min(active, len(sig.Parameters)-1)
	}
	return protocol.SignatureHelp{Signatures: []protocol.SignatureInformation{sig}, ActiveParameter: uint32(active)}, nil
}

// signatureOf is the synopsis of name: a function the document declares,
// else the registry's.
func (s *Server) signatureOf(d *document, name string, method bool) string {
	reg := s.opts.Registry
	if method {
		u, _ := reg.MethodUsage(name)
		return u
	}
	idx := d.analysis().idx
	if idx == nil {
		idx = d.lastIdx
	}
	if idx != nil {
		for _, dd := range idx.defs {
			if dd.name == name && dd.decl != nil {
				return fnSignature(idx.src, dd.decl)
			}
		}
	}
	u, _ := reg.Usage(name)
	return u
}

// openCall finds the unclosed `(` before off and how many top-level
// commas lie between it and off; -1 when off is in no argument list.
func openCall(src string, off int) (int, int) {
	depth, commas := 0, 0
	stop := max(0, off-maxSignatureScan)
	for i := min(off, len(src)) - 1; i >= stop; i-- {
		switch src[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			if depth == 0 {
				return -1, 0
			}
			depth--
		case '(':
			if depth == 0 {
				return i, commas
			}
			depth--
		case ',':
			if depth == 0 {
				commas++
			}
		case '\n':
			if depth == 0 && i > 0 && src[i-1] != ',' && src[i-1] != '(' {
				return -1, 0
			}
		}
	}
	return -1, 0
}

// paramRanges splits the parenthesised list of a synopsis into parameter
// label ranges (UTF-16 offsets into label).
func paramRanges(label string) []protocol.ParameterInformation {
	open := strings.IndexByte(label, '(')
	if open < 0 {
		return []protocol.ParameterInformation{}
	}
	var out []protocol.ParameterInformation
	depth, start := 0, open+1
	u16 := func(i int) uint32 { return uint32(len(utf16.Encode([]rune(label[:i])))) }
	for i := open + 1; i < len(label); i++ {
		switch label[i] {
		case '(', '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',', ')':
			if depth > 0 && label[i] == ')' {
				depth--
				continue
			}
			if depth > 0 {
				continue
			}
			a, b := start, i
			for a < b && label[a] == ' ' {
				a++
			}
			if a < b {
				out = append(out, protocol.ParameterInformation{Label: [2]uint32{u16(a), u16(b)}})
			}
			start = i + 1
			if label[i] == ')' {
				return out
			}
		}
	}
	return out
}
