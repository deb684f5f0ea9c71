package value

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
)

// CodeTooLarge is the error code of a value past a bound.
const CodeTooLarge = "too_large"

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
