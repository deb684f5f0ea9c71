package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolInputMatchesSDK: the facade's own argument handling
// (toolHandler) answers every call exactly as the SDK's generic AddTool
// does, for each of the facade's tool schemas: the defaulted arguments the
// handler sees, validation failures, handler errors and JSON-RPC errors,
// except that a tool error also has structuredContent {code, error,
// message} (errors.go), which the SDK's path leaves out.
func TestToolInputMatchesSDK(t *testing.T) {
	args := []string{
		`{"src":"1 + 1"}`,
		`{"src":"ls","mode":"plan","position":"stmt","background":true,"timeout_ms":5,"elide":{"max_rows":3}}`,
		`{"src":"x","bogus":1}`,
		`{"src":7}`,
		`{}`,
		`{"src":"a","elide":{"max_bytes":0}}`,
		`{"src":"é\u00e9\u2028<&>","timeout_ms":1.5}`,
		`{"ref":"out:1","slice":[1,2,3]}`,
		`{"pty_id":"pty:1","input":[{"key":"Enter"},"ab",{"text":"x","key":"y"}]}`,
		`{"plan_ref":"plan:1","effects":["fs_write"],"deny":false}`,
		`{"limit":0,"effects":["a","b"]}`,
		`{"cmd":"vi","env":{"A":"1","B":2}}`,
		`{"SRC":"1","Src":"2"}`,
		`{"src":"1","src":"2"}`,
		`{"src":"ls.where(.name == \"a<b>&c\").map(x => x.size)\n\t\\ \/"}`,
		`{ "src" : "é ✓ \u00e9" }`,
		`{"src":"é ✓ \ud800"}`,
		`{"src":""}`,
		`{"src":"a","mode":"plan"}`,
		`{"mode":"plan","src":"a"}`,
		`{"src":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["deep"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
		`[1,2]`,
		`"str"`,
	}
	outcomes := []struct {
		name string
		err  error
	}{
		{"echo", nil},
		{"plain error", errors.New("it failed")},
		{"wire error", &jsonrpc.Error{Code: -32099, Message: "wire"}},
	}
	for _, o := range outcomes {
		h := func(_ context.Context, _ *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, error) {
			if o.err != nil {
				return nil, o.err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(args)}}}, nil
		}
		generic := sdk.NewServer(&sdk.Implementation{Name: "g", Version: "1"}, nil)
		own := sdk.NewServer(&sdk.Implementation{Name: "g", Version: "1"}, nil)
		f := &Facade{inflight: make(chan struct{}, MaxInFlight)}
		for _, d := range tools {
			s, err := d.inputSchema()
			if err != nil {
				t.Fatal(err)
			}
			sdk.AddTool(generic, &sdk.Tool{Name: d.name, InputSchema: s},
				func(ctx context.Context, req *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, any, error) {
					res, err := h(ctx, req, args)
					return res, nil, err
				})
			s2, _ := d.inputSchema()
			resolved, err := s2.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
			if err != nil {
				t.Fatal(err)
			}
			own.AddTool(&sdk.Tool{Name: d.name, InputSchema: s2}, f.toolHandler(resolved, h))
		}
		gc, oc := connectInMemory(t, generic), connectInMemory(t, own)
		for _, d := range tools {
			for _, a := range args {
				want, werr := gc.CallTool(t.Context(), &sdk.CallToolParams{Name: d.name, Arguments: json.RawMessage(a)})
				got, gerr := oc.CallTool(t.Context(), &sdk.CallToolParams{Name: d.name, Arguments: json.RawMessage(a)})
				if got != nil && got.IsError {
					var e toolErrorBody
					sc, _ := json.Marshal(got.StructuredContent)
					if json.Unmarshal(sc, &e) != nil || e.Error == "" || e.Message == "" {
						t.Errorf("%s %s %s: a tool error's structuredContent = %s", o.name, d.name, a, sc)
					}
					got.StructuredContent = nil
				}
				wb, _ := json.Marshal(want)
				gb, _ := json.Marshal(got)
				wb, gb = unordered(wb), unordered(gb)
				if string(wb) != string(gb) || errText(werr) != errText(gerr) {
					t.Errorf("%s %s %s:\n got %s, %v\nwant %s, %v", o.name, d.name, a, gb, gerr, wb, werr)
				}
			}
			// "arguments": null, on which the SDK's own path panics when
			// they reach it as the bytes null (as here, in memory), is
			// answered as no arguments are.
			want, werr := oc.CallTool(t.Context(), &sdk.CallToolParams{Name: d.name, Arguments: json.RawMessage(`{}`)})
			got, gerr := oc.CallTool(t.Context(), &sdk.CallToolParams{Name: d.name, Arguments: json.RawMessage(`null`)})
			wb, _ := json.Marshal(want)
			gb, _ := json.Marshal(got)
			if string(wb) != string(gb) || errText(werr) != errText(gerr) {
				t.Errorf("%s %s null:\n got %s, %v\nwant %s, %v", o.name, d.name, gb, gerr, wb, werr)
			}
		}
	}
}

// additional matches the list of unexpected properties in a validation
// error, which the validator writes in map order (random).
var additional = regexp.MustCompile(`additional properties \[[^\]]*\]`)

// unordered is b with each such list sorted.
func unordered(b []byte) []byte {
	return additional.ReplaceAllFunc(b, func(m []byte) []byte {
		open := bytes.IndexByte(m, '[')
		items := strings.Fields(string(m[open+1 : len(m)-1]))
		slices.Sort(items)
		return []byte(string(m[:open+1]) + strings.Join(items, " ") + "]")
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return strings.TrimSpace(err.Error())
}

// connectInMemory is a client session on srv over in-memory transports.
func connectInMemory(t *testing.T, srv *sdk.Server) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
