package value

import "github.com/shoalgo/shoal/proto"

// Bounds on one value, so that a runaway program (a string or list doubled
// in a loop, a huge range made into a list, a replacement that multiplies
// its input) fails with a catchable `too_large` error instead of exhausting
// the memory of the process, which in the kernel serves every session.
// They bound the operations that grow a value beyond their inputs; values
// read from outside are bounded where they are read (the host caps file
// reads and captured output).
const (
	// MaxStrBytes bounds a str or bytes value built by the language.
	MaxStrBytes = 128 << 20
	// MaxItems bounds the items of a list or the rows of a table built by
	// the language, and a range made into a list.
	MaxItems = 1 << 24

	// MaxDepth is the deepest nesting (a list inside a list counts two)
	// that a walker which must see a whole value follows. Building a deeper
	// value is allowed (its memory is charged like any other), and equality
	// works at any depth, but rendering shows "…" in place of what lies
	// deeper, and encoders (JSON, YAML, TOML, CSV, the wire) and decoders
	// of documents fail with too_deep. It equals the wire's bound, so every
	// value that encodes at all also crosses the wire.
	MaxDepth = proto.MaxWireDepth

	// MaxEncodedBytes bounds the text an encoder (json, yaml, toml
	// stringify; inline rendering) produces from one value. A value whose
	// parts are shared (a list holding the same big list twice, doubled in
	// a loop) can describe far more text than it occupies; its encoding
	// fails with too_large at this bound rather than growing without one.
	MaxEncodedBytes = MaxStrBytes
)

// CheckStrLen fails when a str or bytes value of n bytes would pass
// MaxStrBytes.
func CheckStrLen(n int) error {
	if n > MaxStrBytes || n < 0 {
		return Errorf(CodeTooLarge, "a value of %s would pass the %s a str or bytes value may hold", FormatSize(int64(n)), FormatSize(MaxStrBytes)).
			WithHint("work on the data in parts, or keep it in a file and process it with a command")
	}
	return nil
}

// CheckItems fails when a list or table of n items would pass MaxItems.
func CheckItems(n int) error {
	if n > MaxItems || n < 0 {
		return Errorf(CodeTooLarge, "a list of %d items would pass the %d items a list or table may hold", n, MaxItems).
			WithHint("work on the items in parts, or use a stream")
	}
	return nil
}

// TooDeep is the too_deep error of what, a value or document nested past
// MaxDepth.
func TooDeep(what string) *Error {
	return Errorf(CodeTooDeep, "%s is nested deeper than %d levels", what, MaxDepth).
		WithHint("flatten the data, or work on a part of it (a field or an item) at a time")
}

// tooLargeEncoding is the too_large error of an encoding past
// MaxEncodedBytes.
func tooLargeEncoding(what string) *Error {
	return Errorf(CodeTooLarge, "%s would pass the %s an encoding may produce", what, FormatSize(MaxEncodedBytes)).
		WithHint("encode a part of the value at a time")
}
