// Package proto is Shoal's kernel wire protocol: newline-delimited framing
// with bounded reads, JSON-RPC 2.0 envelopes and error codes, a
// non-blocking per-connection outbound queue, and the `$`-tagged wire value
// algebra with a strict validating decoder.
//
// The package imports only the standard library so that the kernel, the MCP
// facade and test clients can share it without linking the evaluator.
//
// # Frames
//
// A frame is one compact JSON value followed by '\n'. [Reader] enforces the
// line bound while reading and never holds more than maxLine+1 bytes;
// [Writer] and [Outbox] write whole frames in single writes so frames never
// interleave.
//
// # Methods
//
// [Methods] is the method table: each kernel method's name, whether it is
// served before session.attach, and its params and result types, declared
// in this package (api_*.go) for the kernel, the Go client and the MCP
// facade alike.
//
// # Wire values
//
// Wire values are represented by the [Value] interface, implemented by one
// Go type per tag ([Null], [Int], [Table], [Ref], ...). [DecodeWire] parses
// and strictly checks a tagged value; [AppendWire] and each type's
// MarshalJSON produce the canonical encoding, which DecodeWire accepts and
// which is a fixed point of decode/encode.
package proto
