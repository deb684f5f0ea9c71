package value

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Size units, decimal and binary, as accepted by literals and word
// coercion. Rendering uses only the decimal ones.
var sizeUnits = [...]struct {
	name string
	mult int64
}{
	{"b", 1},
	{"kb", 1000},
	{"mb", 1000 * 1000},
	{"gb", 1000 * 1000 * 1000},
	{"tb", 1000 * 1000 * 1000 * 1000},
	{"kib", 1 << 10},
	{"mib", 1 << 20},
	{"gib", 1 << 30},
	{"tib", 1 << 40},
}

// Duration units, largest first, as used by rendering; parsing accepts the
// same names.
var durUnits = [...]struct {
	name string
	ns   int64
}{
	{"w", 7 * 24 * int64(time.Hour)},
	{"d", 24 * int64(time.Hour)},
	{"h", int64(time.Hour)},
	{"m", int64(time.Minute)},
	{"s", int64(time.Second)},
	{"ms", int64(time.Millisecond)},
	{"us", int64(time.Microsecond)},
	{"ns", 1},
}

// FormatSize renders a byte count with decimal units (b, kb, mb, gb, tb)
// and at most two decimals, trailing zeros trimmed: 237b, 1.02kb, 4.1kb,
// 1.5mb, 1.1tb. Negative counts (which a Size never holds) get a sign.
func FormatSize(bytes int64) string {
	neg := bytes < 0
	u := uint64(bytes)
	if neg {
		u = -u
	}
	var buf [32]byte
	b := buf[:0]
	if neg {
		b = append(b, '-')
	}
	// Pick the largest decimal unit not above u, then round to hundredths;
	// rounding may carry into the next unit (999.999kb is 1mb).
	unit := 0
	for unit < 4 && u >= uint64(sizeUnits[unit+1].mult) {
		unit++
	}
	for {
		m := uint64(sizeUnits[unit].mult)
		q, r := u/m, u%m
		h := (r*100 + m/2) / m
		if h == 100 {
			q, h = q+1, 0
		}
		if q >= 1000 && unit < 4 {
			unit++
			continue
		}
		b = strconv.AppendUint(b, q, 10)
		if h != 0 {
			b = append(b, '.', byte('0'+h/10))
			if h%10 != 0 {
				b = append(b, byte('0'+h%10))
			}
		}
		b = append(b, sizeUnits[unit].name...)
		return string(b)
	}
}

// FormatDuration renders nanoseconds as a compound of w, d, h, m, s, ms,
// us and ns, largest first, omitting zero parts: 4w2d, 1h30m, -1m30s,
// 250ms, 0s.
func FormatDuration(ns int64) string {
	if ns == 0 {
		return "0s"
	}
	var buf [64]byte
	b := buf[:0]
	u := uint64(ns)
	if ns < 0 {
		b = append(b, '-')
		u = -u
	}
	for _, unit := range durUnits {
		n := uint64(unit.ns)
		if u >= n {
			b = strconv.AppendUint(b, u/n, 10)
			b = append(b, unit.name...)
			u %= n
		}
	}
	return string(b)
}

// ParseSize parses size literal text: a decimal number (underscores and a
// fraction allowed) followed by a lowercase unit b, kb, mb, gb, tb, kib,
// mib, gib or tib. Fractions round to the nearest byte. It reports false
// for anything else, including negative or overflowing sizes.
func ParseSize(text string) (int64, bool) {
	i := 0
	for i < len(text) && (isDigit(text[i]) || text[i] == '.' || text[i] == '_') {
		i++
	}
	num, unit := text[:i], text[i:]
	if num == "" || unit == "" {
		return 0, false
	}
	for _, u := range sizeUnits {
		if u.name == unit {
			return scaleDecimal(num, u.mult)
		}
	}
	return 0, false
}

// ParseDuration parses duration text: one or more number+unit parts
// (ns us ms s m h d w), optionally signed, as in 250ms, 1h30m, 1.5h, -90s.
// It reports false on malformed text or overflow.
func ParseDuration(text string) (int64, bool) {
	neg := false
	if strings.HasPrefix(text, "-") {
		neg, text = true, text[1:]
	} else if strings.HasPrefix(text, "+") {
		text = text[1:]
	}
	if text == "" {
		return 0, false
	}
	var total int64
	for text != "" {
		i := 0
		for i < len(text) && (isDigit(text[i]) || text[i] == '.' || text[i] == '_') {
			i++
		}
		j := i
		for j < len(text) && text[j] >= 'a' && text[j] <= 'z' {
			j++
		}
		num, unit := text[:i], text[i:j]
		if num == "" || unit == "" {
			return 0, false
		}
		mult := int64(0)
		for _, u := range durUnits {
			if u.name == unit {
				mult = u.ns
				break
			}
		}
		if mult == 0 {
			return 0, false
		}
		part, ok := scaleDecimal(num, mult)
		if !ok {
			return 0, false
		}
		if total, ok = addInt64(total, part); !ok {
			return 0, false
		}
		text = text[j:]
	}
	if neg {
		total = -total
	}
	return total, true
}

// scaleDecimal computes round(num * mult) for non-negative decimal text
// with optional underscores and fraction, reporting false on malformed
// text or overflow.
func scaleDecimal(num string, mult int64) (int64, bool) {
	if strings.Contains(num, "_") {
		if num[0] == '_' || num[len(num)-1] == '_' || strings.Contains(num, "__") ||
			strings.Contains(num, "_.") || strings.Contains(num, "._") {
			return 0, false
		}
		num = strings.ReplaceAll(num, "_", "")
	}
	whole, frac, hasFrac := strings.Cut(num, ".")
	if whole == "" || (hasFrac && frac == "") || strings.Contains(frac, ".") {
		return 0, false
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, false
	}
	v, ok := mulInt64(w, mult)
	if !ok {
		return 0, false
	}
	if hasFrac {
		for _, c := range frac {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		f, err := strconv.ParseFloat("0."+frac, 64)
		if err != nil {
			return 0, false
		}
		if v, ok = addInt64(v, int64(math.Round(f*float64(mult)))); !ok {
			return 0, false
		}
	}
	return v, true
}

// ParseTimeOfDay parses a time of day: H:MM or HH:MM[:SS] in 24-hour form,
// or with an am/pm suffix (12-hour, hour 1..12): 09:30, 23:15:45, 10:00am,
// 7:05pm.
func ParseTimeOfDay(text string) (Time, bool) {
	s := strings.ToLower(text)
	ampm := ""
	if strings.HasSuffix(s, "am") || strings.HasSuffix(s, "pm") {
		ampm, s = s[len(s)-2:], s[:len(s)-2]
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	var n [3]int
	for i, p := range parts {
		if len(p) == 0 || len(p) > 2 || (i > 0 && len(p) != 2) {
			return 0, false
		}
		for j := 0; j < len(p); j++ {
			if !isDigit(p[j]) {
				return 0, false
			}
			n[i] = n[i]*10 + int(p[j]-'0')
		}
	}
	h, m, sec := n[0], n[1], n[2]
	if m > 59 || sec > 59 {
		return 0, false
	}
	switch ampm {
	case "":
		if h > 23 {
			return 0, false
		}
	default:
		if h < 1 || h > 12 {
			return 0, false
		}
		h %= 12
		if ampm == "pm" {
			h += 12
		}
	}
	return Time((int64(h)*3600 + int64(m)*60 + int64(sec)) * int64(time.Second)), true
}

// FormatTime renders a time of day as HH:MM, or HH:MM:SS when it has
// seconds (with a fraction when it has sub-second precision).
func FormatTime(t Time) string {
	ns := int64(t)
	day := int64(24 * time.Hour)
	ns %= day
	if ns < 0 {
		ns += day
	}
	sec := ns / int64(time.Second)
	frac := ns % int64(time.Second)
	b := make([]byte, 0, 18)
	b = append2(b, sec/3600)
	b = append(b, ':')
	b = append2(b, sec/60%60)
	if sec%60 != 0 || frac != 0 {
		b = append(b, ':')
		b = append2(b, sec%60)
	}
	if frac != 0 {
		f := strconv.FormatInt(frac+int64(time.Second), 10)[1:]
		b = append(b, '.')
		b = append(b, strings.TrimRight(f, "0")...)
	}
	return string(b)
}

func append2(b []byte, n int64) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10))
}

// Year bounds (in UTC) of a representable datetime: those whose RFC 3339
// rendering is four-digit.
const (
	minYear = 0
	maxYear = 9999
)

// ParseDateTime parses the text of a t"..." literal (or a datetime word):
//
//	2026-07-09                   midnight UTC
//	2026-07-09T14:00             no zone means UTC; a space may replace T
//	2026-07-09T14:00:05.25Z      seconds and fraction optional
//	2026-07-09T09:30:00-07:00    numeric offsets ±HH:MM, ±HHMM, ±HH
//	2026-07-09T14:00+00:00[UTC]  a trailing [zone] names an IANA zone
//
// Failures are value_error language errors naming the text.
func ParseDateTime(text string) (DateTime, error) {
	bad := func(why string) (DateTime, error) {
		return DateTime{}, Errorf(CodeValue, "invalid datetime %q: %s", text, why)
	}
	s := text
	zoneName := ""
	if strings.HasSuffix(s, "]") {
		i := strings.LastIndexByte(s, '[')
		if i < 0 {
			return bad("unbalanced zone annotation")
		}
		zoneName, s = s[i+1:len(s)-1], s[:i]
	}
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return bad("expected YYYY-MM-DD")
	}
	year, ok1 := atoiN(s[0:4])
	month, ok2 := atoiN(s[5:7])
	day, ok3 := atoiN(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return bad("expected YYYY-MM-DD")
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(time.Month(month), year) {
		return bad("date out of range")
	}
	rest := s[10:]
	var hour, minute, sec, nsec int
	loc := time.UTC
	if rest != "" {
		if rest[0] != 'T' && rest[0] != 't' && rest[0] != ' ' {
			return bad("expected T between date and time")
		}
		rest = rest[1:]
		if len(rest) < 5 || rest[2] != ':' {
			return bad("expected HH:MM")
		}
		var ok1, ok2 bool
		hour, ok1 = atoiN(rest[0:2])
		minute, ok2 = atoiN(rest[3:5])
		if !ok1 || !ok2 {
			return bad("expected HH:MM")
		}
		rest = rest[5:]
		if len(rest) >= 3 && rest[0] == ':' {
			var ok bool
			if sec, ok = atoiN(rest[1:3]); !ok {
				return bad("expected seconds")
			}
			rest = rest[3:]
			if len(rest) > 0 && (rest[0] == '.' || rest[0] == ',') {
				i := 1
				for i < len(rest) && isDigit(rest[i]) {
					i++
				}
				digits := rest[1:i]
				if digits == "" || len(digits) > 9 {
					return bad("bad fraction")
				}
				f, _ := atoiN(digits + strings.Repeat("0", 9-len(digits)))
				nsec = f
				rest = rest[i:]
			}
		}
		if hour > 23 || minute > 59 || sec > 60 {
			return bad("time out of range")
		}
		if sec == 60 {
			sec = 59 // leap second: clamp
		}
		if rest != "" {
			off, ok := parseOffset(rest)
			if !ok {
				return bad("bad zone offset")
			}
			if off != 0 || (rest != "Z" && rest != "z") {
				loc = time.FixedZone("", off)
			}
			if off == 0 {
				loc = time.UTC
			}
		}
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc)
	if zoneName != "" {
		if zoneName == "UTC" {
			t = t.In(time.UTC)
		} else if z, err := time.LoadLocation(zoneName); err == nil {
			t = t.In(z)
		}
	}
	if !validDateTime(t) {
		return bad("out of the representable range")
	}
	return DateTime{T: t}, nil
}

func parseOffset(s string) (int, bool) {
	if s == "Z" || s == "z" {
		return 0, true
	}
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	body := strings.Replace(s[1:], ":", "", 1)
	var h, m int
	var ok bool
	switch len(body) {
	case 2:
		h, ok = atoiN(body)
	case 4:
		var ok2 bool
		h, ok = atoiN(body[:2])
		m, ok2 = atoiN(body[2:])
		ok = ok && ok2
	}
	if !ok || h > 23 || m > 59 {
		return 0, false
	}
	return sign * (h*3600 + m*60), true
}

// atoiN parses a short all-digit string.
func atoiN(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// FormatDateTime renders an instant as RFC 3339 in UTC with seconds and a
// `Z`, plus a trimmed fraction when it has sub-second precision:
// 2026-07-09T14:00:00Z.
func FormatDateTime(d DateTime) string {
	return d.T.UTC().Format("2006-01-02T15:04:05.999999999Z")
}

// FormatZoned renders an instant in its own zone with the zone named in
// brackets, as JSON projection does: 2026-07-09T14:00:00+00:00[UTC].
func FormatZoned(d DateTime) string {
	s := d.T.Format("2006-01-02T15:04:05.999999999-07:00")
	name := d.T.Location().String()
	if name == "" || name == "Local" || d.T.Location() == time.UTC {
		if _, off := d.T.Zone(); off == 0 {
			name = "UTC"
		} else {
			name = d.T.Format("-07:00")
		}
	}
	return s + "[" + name + "]"
}

// validDateTime reports whether t is within the representable year range.
func validDateTime(t time.Time) bool {
	y := t.UTC().Year()
	return y >= minYear && y <= maxYear
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
