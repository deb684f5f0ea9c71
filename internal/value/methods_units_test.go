package value

import (
	"testing"
	"time"
)

func TestUnitMethods(t *testing.T) {
	dt := DateTime{T: time.Date(2026, 7, 9, 14, 30, 45, 0, time.UTC)}
	tod := Time(10*time.Hour + 5*time.Minute + 7*time.Second)
	mtRun(t, []mtCase{
		{name: "dt-year", recv: dt, method: "year", want: "2026"},
		{name: "dt-month", recv: dt, method: "month", want: "7"},
		{name: "dt-day", recv: dt, method: "day", want: "9"},
		{name: "dt-hour", recv: dt, method: "hour", want: "14"},
		{name: "dt-minute", recv: dt, method: "minute", want: "30"},
		{name: "dt-second", recv: dt, method: "second", want: "45"},
		{name: "dt-str-type-error", recv: dt, method: "str", err: "type_error"},
		{name: "dt-json", recv: DateTime{T: time.Date(2026, 7, 9, 14, 0, 0, 0, time.UTC)}, method: "json", want: `"\"2026-07-09T14:00:00+00:00[UTC]\""`},
		{name: "time-hour", recv: tod, method: "hour", want: "10"},
		{name: "time-minute", recv: tod, method: "minute", want: "5"},
		{name: "time-second", recv: tod, method: "second", want: "7"},
		{name: "dur-ago", recv: Duration(time.Hour), method: "ago", want: "2026-07-09T13:00:00Z"},
		{name: "dur-from-now", recv: Duration(time.Hour), method: "from_now", want: "2026-07-09T15:00:00Z"},
		{name: "dur-nope", recv: Duration(time.Second), method: "nope", err: "field_missing"},
		{name: "dur-str", recv: Duration(time.Second), method: "str", err: "type_error"},
		{name: "size-str", recv: Size(1000), method: "str", err: "type_error"},
		{name: "bytes-len", recv: Bytes("hi"), method: "len", want: "2"},
		{name: "bytes-len-raw", recv: Bytes("é"), method: "len", want: "2"},
		{name: "bytes-count", recv: Bytes("hi"), method: "count", want: "2"},
		{name: "bytes-is-empty", recv: Bytes(""), method: "is_empty", want: "true"},
		{name: "bytes-is-empty-false", recv: Bytes("hi"), method: "is_empty", want: "false"},
		{name: "bytes-str", recv: Bytes("hi"), method: "str", want: `"hi"`},
		{name: "bytes-str-invalid", recv: Bytes("\xff"), method: "str", err: "utf8_error"},
		{name: "bytes-display-lossy", recv: Bytes("a\xffb"), method: "display", want: `"a` + "\uFFFD" + `b"`},
		{name: "bytes-json", recv: Bytes("hi"), method: "json", want: `"\"hi\""`},
		{name: "bytes-first", recv: Bytes("hi"), method: "first", err: "type_error"},
		{name: "bytes-reverse", recv: Bytes("hi"), method: "reverse", err: "type_error"},
		{name: "bytes-upper", recv: Bytes("hi"), method: "upper", err: "type_error"},
		{name: "path-display", recv: Path("nested/a.txt"), method: "display", want: `"nested/a.txt"`},
		{name: "path-str-invalid", recv: Path("a\xff"), method: "str", err: "utf8_error"},
		{name: "glob-pattern", recv: &Glob{Pattern: "*.txt"}, method: "pattern", want: `"*.txt"`},
	})
}
