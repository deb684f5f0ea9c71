package syntax

import (
	"math"
	"strconv"
	"strings"
)

// scanNumber scans an integer, float, size, duration or time-of-day literal
// starting at the digit at pos. Values are decoded later by decodeNumber.
func scanNumber(src string, pos int) token {
	start := pos
	n := len(src)
	if src[pos] == '0' && pos+2 < n {
		if base := radixOf(src[pos+1]); base != 0 && digitVal(src[pos+2]) < base {
			i := pos + 2
			for i < n && (digitVal(src[i]) < base || src[i] == '_') {
				i++
			}
			if i < n && (isIdentByte(src[i]) || src[i] >= 0x80) {
				j := scanIdent(src, i)
				return illegal(start, j, "invalid digit in number literal `"+src[start:j]+"`",
					"0x takes 0-9 and a-f, 0o takes 0-7, 0b takes 0 and 1")
			}
			return mkTok(tInt, start, i)
		}
	}
	i := pos
	for i < n && isDigit(src[i]) {
		i++
	}
	// Time of day: H:MM, HH:MM, optional :SS, optional am/pm.
	if i-pos <= 2 && i+2 < n && src[i] == ':' && isDigit(src[i+1]) && isDigit(src[i+2]) && (i+3 >= n || !isDigit(src[i+3])) {
		j := i + 3
		if j+2 < n && src[j] == ':' && isDigit(src[j+1]) && isDigit(src[j+2]) && (j+3 >= n || !isDigit(src[j+3])) {
			j += 3
		}
		if j+1 < n && (src[j] == 'a' || src[j] == 'p') && src[j+1] == 'm' {
			j += 2
		}
		if j < n && isIdentByte(src[j]) {
			k := scanIdent(src, j)
			return illegal(start, k, "invalid time literal `"+src[start:k]+"`", "write 09:30, 23:15:45, 10:00am or 7:05pm")
		}
		return mkTok(tTime, start, j)
	}
	for i < n && (isDigit(src[i]) || src[i] == '_') {
		i++
	}
	kind := tInt
	if i+1 < n && src[i] == '.' && isDigit(src[i+1]) {
		kind = tFloat
		i += 2
		for i < n && (isDigit(src[i]) || src[i] == '_') {
			i++
		}
	}
	if i < n && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < n && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < n && isDigit(src[j]) {
			kind = tFloat
			i = j
			for i < n && isDigit(src[i]) {
				i++
			}
		}
	}
	if i < n && ((src[i] >= 'a' && src[i] <= 'z') || (src[i] >= 'A' && src[i] <= 'Z')) {
		u := i
		for u < n && ((src[u] >= 'a' && src[u] <= 'z') || (src[u] >= 'A' && src[u] <= 'Z')) {
			u++
		}
		unit := src[i:u]
		if u < n && (isIdentByte(src[u]) || src[u] >= 0x80) {
			k := scanIdent(src, u)
			return illegal(start, k, "invalid number literal `"+src[start:k]+"`", numberHint)
		}
		if _, ok := sizeUnit(unit); ok {
			return mkTok(tSize, start, u)
		}
		if _, ok := durationUnit(unit); ok {
			return mkTok(tDuration, start, u)
		}
		lower := strings.ToLower(unit)
		if _, ok := sizeUnit(lower); ok {
			return illegal(start, u, "size units are lowercase: write `"+lower+"`, not `"+unit+"`",
				"sizes: b kb mb gb tb kib mib gib tib")
		}
		if _, ok := durationUnit(lower); ok {
			return illegal(start, u, "duration units are lowercase: write `"+lower+"`, not `"+unit+"`",
				"durations: ns us ms s m h d w")
		}
		return illegal(start, u, "unknown unit `"+unit+"` in number literal `"+src[start:u]+"`",
			"sizes: b kb mb gb tb kib mib gib tib; durations: ns us ms s m h d w")
	}
	if i < n && (src[i] == '_' || src[i] >= 0x80) {
		k := scanIdent(src, i)
		return illegal(start, k, "invalid number literal `"+src[start:k]+"`", numberHint)
	}
	return mkTok(kind, start, i)
}

// numberHint explains what may follow the digits of a number literal.
const numberHint = "a number may end in a unit such as kb or ms, nothing else; separate it from a name with a space"

func radixOf(c byte) int {
	switch c {
	case 'x', 'X':
		return 16
	case 'o', 'O':
		return 8
	case 'b', 'B':
		return 2
	}
	return 0
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

func sizeUnit(u string) (int64, bool) {
	switch u {
	case "b":
		return 1, true
	case "kb":
		return 1000, true
	case "mb":
		return 1000 * 1000, true
	case "gb":
		return 1000 * 1000 * 1000, true
	case "tb":
		return 1000 * 1000 * 1000 * 1000, true
	case "kib":
		return 1 << 10, true
	case "mib":
		return 1 << 20, true
	case "gib":
		return 1 << 30, true
	case "tib":
		return 1 << 40, true
	}
	return 0, false
}

func durationUnit(u string) (int64, bool) {
	const (
		us = 1000
		ms = 1000 * us
		s  = 1000 * ms
	)
	switch u {
	case "ns":
		return 1, true
	case "us":
		return us, true
	case "ms":
		return ms, true
	case "s":
		return s, true
	case "m":
		return 60 * s, true
	case "h":
		return 3600 * s, true
	case "d":
		return 86400 * s, true
	case "w":
		return 7 * 86400 * s, true
	}
	return 0, false
}

// parseIntText decodes a decimal or 0x/0o/0b integer with `_` separators.
func parseIntText(text string) (int64, bool) {
	base := uint64(10)
	if len(text) > 2 && text[0] == '0' {
		if b := radixOf(text[1]); b != 0 {
			base = uint64(b)
			text = text[2:]
		}
	}
	var v uint64
	digits := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '_' {
			continue
		}
		d := uint64(digitVal(c))
		if d >= base {
			return 0, false
		}
		if v > (math.MaxInt64-d)/base {
			return 0, false
		}
		v = v*base + d
		digits++
	}
	return int64(v), digits > 0
}

// parseFloatText decodes a decimal float with optional `_` separators.
func parseFloatText(text string) (float64, bool) {
	if strings.IndexByte(text, '_') >= 0 {
		text = strings.ReplaceAll(text, "_", "")
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// splitUnit splits a quantity literal into its numeric text and unit.
func splitUnit(text string) (num, unit string) {
	i := len(text)
	for i > 0 && text[i-1] >= 'a' && text[i-1] <= 'z' {
		i--
	}
	return text[:i], text[i:]
}

// quantity scales the numeric text by mult, rounding a fraction to the
// nearest unit; ok is false on overflow.
func quantity(num string, mult int64) (int64, bool) {
	if strings.ContainsAny(num, ".eE") {
		f, ok := parseFloatText(num)
		if !ok {
			return 0, false
		}
		v := math.Round(f * float64(mult))
		if v >= math.MaxInt64 || v < 0 {
			return 0, false
		}
		return int64(v), true
	}
	n, ok := parseIntText(num)
	if !ok {
		return 0, false
	}
	if n != 0 && n > math.MaxInt64/mult {
		return 0, false
	}
	return n * mult, true
}

// parseTimeText decodes a time-of-day literal to nanoseconds since midnight.
func parseTimeText(text string) (nanos int64, hasSeconds bool, ok bool) {
	suffix := ""
	if strings.HasSuffix(text, "am") || strings.HasSuffix(text, "pm") {
		suffix = text[len(text)-2:]
		text = text[:len(text)-2]
	}
	parts := strings.Split(text, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false, false
	}
	var vals [3]int64
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil {
			return 0, false, false
		}
		vals[i] = int64(v)
	}
	h, m, s := vals[0], vals[1], vals[2]
	if m > 59 || s > 59 {
		return 0, false, false
	}
	switch suffix {
	case "":
		if h > 23 {
			return 0, false, false
		}
	default:
		if h < 1 || h > 12 {
			return 0, false, false
		}
		if h == 12 {
			h = 0
		}
		if suffix == "pm" {
			h += 12
		}
	}
	const sec = int64(1e9)
	return ((h*60+m)*60 + s) * sec, len(parts) == 3, true
}
