package mcp_test

import (
	"fmt"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/fastpath"
)

// BenchmarkExecThroughMCP: one shoal_exec round trip through shoal-mcp
// (SDK client → stdio → facade → kernel socket → back), beside its
// floor, the same exec sent straight to the kernel by the Go client.
func BenchmarkExecThroughMCP(b *testing.B) {
	k := newBase(b)
	k.start(b)
	b.Run("mcp", func(b *testing.B) {
		s := connect(b, k)
		p := &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "[3, 1, 2].sort()"}}
		b.ResetTimer()
		for b.Loop() {
			res, err := s.cs.CallTool(ctx(b), p)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("raw-client-timeout_ms", func(b *testing.B) {
		c := k.raw(b, "default", "")
		b.ResetTimer()
		for b.Loop() {
			if _, err := c.Exec(ctx(b), client.ExecParams{Src: "[3, 1, 2].sort()", Position: client.PositionVal, TimeoutMS: 250}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// pair is issue 24's row: the shoal_exec through the facade beside
	// the floor's raw client exec, alternating in the same run, with
	// p50s and ratio.
	b.Run("pair", func(b *testing.B) {
		s := connect(b, k)
		c := k.raw(b, "default", "")
		p := &sdk.CallToolParams{Name: "shoal_exec", Arguments: map[string]any{"src": "[3, 1, 2].sort()"}}
		viaMCP := func() error {
			res, err := s.cs.CallTool(ctx(b), p)
			if err == nil && res.IsError {
				err = fmt.Errorf("shoal_exec: %+v", res.Content)
			}
			return err
		}
		raw := func() error {
			_, err := c.Exec(ctx(b), client.ExecParams{Src: "[3, 1, 2].sort()", Position: client.PositionVal})
			return err
		}
		var pr fastpath.Pair
		for b.Loop() {
			if err := pr.Run(viaMCP, raw); err != nil {
				b.Fatal(err)
			}
		}
		pr.Report(b, false)
	})
	b.Run("floor-raw-client", func(b *testing.B) {
		c := k.raw(b, "default", "")
		b.ResetTimer()
		for b.Loop() {
			if _, err := c.Exec(ctx(b), client.ExecParams{Src: "[3, 1, 2].sort()", Position: client.PositionVal}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
