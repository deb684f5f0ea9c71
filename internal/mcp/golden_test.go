package mcp

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.golden.json from the tools as advertised")

// TestToolsGolden: the tools as a client lists them (names, descriptions,
// input schemas) are checked in, so that every change to what a model
// reads is reviewed. Run with -update to accept a change.
func TestToolsGolden(t *testing.T) {
	f, err := New(nil, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := inMemoryClient(t, ctx, f)
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "tools.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/mcp -run TestToolsGolden -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("the advertised tools differ from %s; review the change and run with -update:\n%s", path, got)
	}
	if len(res.Tools) != 13 {
		t.Errorf("%d tools, want 13", len(res.Tools))
	}
}

// TestEveryToolHasAnImplementation: the table of tools and the handlers
// match, and every schema parses as a closed object.
func TestEveryToolHasAnImplementation(t *testing.T) {
	if _, err := New(nil, os.Stderr); err != nil {
		t.Fatal(err)
	}
	for _, d := range tools {
		s, err := d.inputSchema()
		if err != nil {
			t.Fatal(err)
		}
		if s.Type != "object" || s.AdditionalProperties == nil {
			t.Errorf("%s: schema is not a closed object", d.name)
		}
		if len(d.desc) < 40 {
			t.Errorf("%s: description too short for a model to use", d.name)
		}
	}
}

// TestInFlightBound: past MaxInFlight calls being served, one more is a
// tool error saying so, and nothing reaches the kernel.
func TestInFlightBound(t *testing.T) {
	f, err := New(nil, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	for range MaxInFlight {
		f.inflight <- struct{}{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := inMemoryClient(t, ctx, f)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "64 tool calls") {
		t.Fatalf("call past the bound = %+v", res)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "shoal://tasks"}); err == nil || !strings.Contains(err.Error(), "64 calls") {
		t.Fatalf("read past the bound: %v", err)
	}
	<-f.inflight
	if len(f.inflight) != MaxInFlight-1 {
		t.Fatalf("the refused call kept a token: %d", len(f.inflight))
	}
}

// inMemoryClient connects an SDK client to f's server in memory, both
// closed when the test ends.
func inMemoryClient(t *testing.T, ctx context.Context, f *Facade) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := f.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "in-memory", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
