package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"github.com/shoalgo/shoal/proto"
)

// The facade registers its tools with the SDK's low-level Server.AddTool
// and does here, per call, what the SDK's generic AddTool would do around
// a handler whose input is json.RawMessage: validate the arguments
// against the tool's input schema and apply its defaults, then call the
// handler and turn a returned error into a tool error. It does the same
// steps, in the same order, with the same decoder settings and the same
// messages, so that every answer is byte for byte the one the generic
// path gives (TestToolInputMatchesSDK); what it saves is the SDK's
// decoding through a streaming decoder, which allocates a 32 KiB buffer
// per call (twice per tool call: the arguments into a map, then the
// defaulted arguments into the handler's json.RawMessage).

// maxArgsDepth is the nesting the SDK's decoder accepts
// (go-sdk/internal/json's defaultMaxDepth); the gate's MaxFrameDepth is
// far below it, but a facade served on another transport (tests) meets
// the SDK's own bound.
const maxArgsDepth = 1000

// errArgsTooDeep is the SDK decoder's error past maxArgsDepth, word for word.
var errArgsTooDeep = fmt.Errorf("json: exceeded maximum nesting depth of %d", maxArgsDepth)

// toolInput validates a tool call's arguments against resolved and
// returns them with the schema's defaults applied, as the SDK's
// applySchema does for a tool's input.
func toolInput(data json.RawMessage, resolved *jsonschema.Resolved) (json.RawMessage, error) {
	v := make(map[string]any)
	if len(data) > 0 {
		if err := decodeLikeSDK(data, &v); err != nil {
			return nil, fmt.Errorf("unmarshaling arguments: %w", err)
		}
		if v == nil {
			// "arguments": null, read as no arguments. (Over stdio the
			// SDK's decoder already makes null arguments nil; when they
			// reach a tool as the bytes null, as over the SDK's
			// in-memory transport, its generic path panics applying
			// defaults to a nil map.)
			v = make(map[string]any)
		}
	}
	var unmarshaled any = v
	if err := resolved.ApplyDefaults(&unmarshaled); err != nil {
		return nil, fmt.Errorf("applying schema defaults:\n%w", err)
	}
	if err := resolved.Validate(&unmarshaled); err != nil {
		return nil, err
	}
	out, err := json.Marshal(unmarshaled)
	if err != nil {
		return nil, fmt.Errorf("marshalling with defaults: %v", err)
	}
	return out, nil
}

// decodeLikeSDK decodes one JSON value as the SDK's internal decoder
// does: the same depth bound, then segmentio's parser with exact
// (case-sensitive) member names, but over the bytes given rather than
// through a stream.
func decodeLikeSDK(data []byte, v any) error {
	if depth, _ := proto.FrameDepth(data); depth > maxArgsDepth {
		return errArgsTooDeep
	}
	_, err := segjson.Parse(data, v, segjson.DontMatchCaseInsensitiveStructFields)
	return err
}

// toolHandler wraps h as the SDK's generic AddTool wraps a typed handler
// (go-sdk's toolForErr): invalid arguments and handler errors become tool
// errors, a JSON-RPC error is returned as it is.
func (f *Facade) toolHandler(resolved *jsonschema.Resolved, h handler) sdk.ToolHandler {
	so := newSrcOnly(resolved)
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args, ok := so.input(req.Params.Arguments)
		var err error
		if !ok {
			args, err = toolInput(req.Params.Arguments, resolved)
		}
		if err != nil {
			return codedError(proto.CodeInvalidParams, "invalid_arguments", fmt.Errorf("validating \"arguments\": %v", err)), nil
		}
		res, err := f.limited(ctx, req, args, h)
		if err != nil {
			if wire, ok := err.(*jsonrpc.Error); ok {
				return nil, wire
			}
			if errors.Is(err, errBusy) {
				return codedError(proto.CodeInternalError, "busy", err), nil
			}
			return plainErrorResult(err), nil
		}
		if res == nil {
			res = &sdk.CallToolResult{}
		}
		return res, nil
	}
}

// errBusy is the error of a call past MaxInFlight.
var errBusy = errors.New("busy")

// limited runs h if fewer than MaxInFlight calls are being served.
func (f *Facade) limited(ctx context.Context, req *sdk.CallToolRequest, args json.RawMessage, h handler) (*sdk.CallToolResult, error) {
	select {
	case f.inflight <- struct{}{}:
		defer func() { <-f.inflight }()
	default:
		return nil, fmt.Errorf("%w: shoal-mcp is serving %d tool calls already; retry once one has answered", errBusy, MaxInFlight)
	}
	return h(ctx, req, args)
}
