package value

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestFormatSize(t *testing.T) {
	cases := []struct {
		in   int64
		want string
	}{
		{0, "0b"},
		{237, "237b"},
		{999, "999b"},
		{1000, "1kb"},
		{1020, "1.02kb"},
		{1500, "1.5kb"},
		{4096, "4.1kb"},
		{2500, "2.5kb"},
		{12000, "12kb"},
		{500000, "500kb"},
		{999994, "999.99kb"},
		{999995, "1mb"}, // rounding carries into the next unit
		{1000000, "1mb"},
		{1500000, "1.5mb"},
		{4 << 20, "4.19mb"},
		{1 << 30, "1.07gb"},
		{1500000000, "1.5gb"},
		{2000000000000, "2tb"},
		{1 << 40, "1.1tb"},
		{9000000000000000000, "9000000tb"},
		{math.MaxInt64, "9223372.04tb"},
		{-1500, "-1.5kb"},
	}
	for _, c := range cases {
		if got := FormatSize(c.in); got != c.want {
			t.Errorf("FormatSize(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	cases := []struct {
		in   time.Duration
		want string
	}{
		{0, "0s"},
		{250 * time.Millisecond, "250ms"},
		{5 * time.Second, "5s"},
		{-5 * time.Second, "-5s"},
		{90 * time.Second, "1m30s"},
		{-90 * time.Second, "-1m30s"},
		{time.Hour + 30*time.Minute, "1h30m"},
		{2 * time.Hour, "2h"},
		{36 * time.Hour, "1d12h"},
		{90000 * time.Second, "1d1h"},
		{30 * 24 * time.Hour, "4w2d"},
		{28 * 24 * time.Hour, "4w"},
		{1500 * time.Millisecond, "1s500ms"},
		{time.Microsecond + 5, "1us5ns"},
		{1, "1ns"},
		{math.MinInt64, "-15250w1d23h47m16s854ms775us808ns"},
	}
	for _, c := range cases {
		if got := FormatDuration(int64(c.in)); got != c.want {
			t.Errorf("FormatDuration(%d) = %q, want %q", int64(c.in), got, c.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"237b", 237, true},
		{"1kb", 1000, true},
		{"1.5mb", 1500000, true},
		{"0.5kb", 500, true},
		{"1_000kb", 1000000, true},
		{"4kib", 4096, true},
		{"4mib", 4 << 20, true},
		{"1gib", 1 << 30, true},
		{"1tib", 1 << 40, true},
		{"2tb", 2000000000000, true},
		{"1.0005kb", 1001, true}, // rounds to nearest byte (1000.5 -> 1001)
		{"0b", 0, true},
		{"1KB", 0, false}, // uppercase rejected
		{"kb", 0, false},
		{"1", 0, false},
		{"-1kb", 0, false},
		{"1.kb", 0, false},
		{".5kb", 0, false},
		{"1..5kb", 0, false},
		{"1_kb", 0, false},
		{"1pb", 0, false},
		{"9999999999tb", 0, false}, // overflow
		{"", 0, false},
	}
	for _, c := range cases {
		got, ok := ParseSize(c.in)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestParseDuration(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"250ms", 250 * time.Millisecond, true},
		{"0s", 0, true},
		{"5s", 5 * time.Second, true},
		{"1h30m", 90 * time.Minute, true},
		{"1.5h", 90 * time.Minute, true},
		{"-90s", -90 * time.Second, true},
		{"4w2d", 30 * 24 * time.Hour, true},
		{"1us", time.Microsecond, true},
		{"3ns", 3, true},
		{"1_000ms", time.Second, true},
		{"5", 0, false},
		{"s", 0, false},
		{"5x", 0, false},
		{"5S", 0, false},
		{"1h 30m", 0, false},
		{"-", 0, false},
		{"", 0, false},
		{"99999999999w", 0, false},
	}
	for _, c := range cases {
		got, ok := ParseDuration(c.in)
		if ok != c.ok || (ok && got != int64(c.want)) {
			t.Errorf("ParseDuration(%q) = %d, %v; want %d, %v", c.in, got, ok, int64(c.want), c.ok)
		}
	}
}

func TestParseTimeOfDay(t *testing.T) {
	cases := []struct {
		in     string
		render string // "" means parse fails
	}{
		{"10:00am", "10:00"},
		{"10:30am", "10:30"},
		{"10:30:15pm", "22:30:15"},
		{"7:05pm", "19:05"},
		{"12:00am", "00:00"},
		{"12:00pm", "12:00"},
		{"23:15", "23:15"},
		{"23:15:45", "23:15:45"},
		{"09:30", "09:30"},
		{"0:00", "00:00"},
		{"24:00", ""},
		{"13:00pm", ""},
		{"0:00am", ""},
		{"10:60", ""},
		{"10:5", ""},
		{"10", ""},
		{"10:00:00:00", ""},
		{"ab:cd", ""},
		{"", ""},
	}
	for _, c := range cases {
		got, ok := ParseTimeOfDay(c.in)
		if ok != (c.render != "") {
			t.Errorf("ParseTimeOfDay(%q) ok = %v, want %v", c.in, ok, c.render != "")
			continue
		}
		if ok && FormatTime(got) != c.render {
			t.Errorf("ParseTimeOfDay(%q) renders %q, want %q", c.in, FormatTime(got), c.render)
		}
	}
}

func TestFormatTimeFraction(t *testing.T) {
	v := vcTime(1, 2, 3) + Time(500*time.Millisecond)
	if got := FormatTime(v); got != "01:02:03.5" {
		t.Errorf("FormatTime = %q, want 01:02:03.5", got)
	}
}

func TestParseDateTime(t *testing.T) {
	cases := []struct {
		in, utc string // utc "" means the parse fails
	}{
		{"2026-07-09T14:00Z", "2026-07-09T14:00:00Z"},
		{"2026-07-09T14:00:00Z", "2026-07-09T14:00:00Z"},
		{"2026-07-09T14:30:45Z", "2026-07-09T14:30:45Z"},
		{"2026-07-09", "2026-07-09T00:00:00Z"},
		{"2026-07-09T14:00", "2026-07-09T14:00:00Z"},
		{"2026-07-09 14:00", "2026-07-09T14:00:00Z"},
		{"2026-07-16T09:30:00-07:00", "2026-07-16T16:30:00Z"},
		{"2026-07-16T09:30:00+0530", "2026-07-16T04:00:00Z"},
		{"2026-07-16T09:30+01", "2026-07-16T08:30:00Z"},
		{"2026-07-09T14:00:00.25Z", "2026-07-09T14:00:00.25Z"},
		{"2026-07-09T14:00:00+00:00[UTC]", "2026-07-09T14:00:00Z"},
		{"2024-02-29", "2024-02-29T00:00:00Z"},
		{"2026-02-29", ""},
		{"2026-13-01", ""},
		{"2026-07-09T25:00Z", ""},
		{"2026-07-09T14:00Q", ""},
		{"2026-07-09X14:00", ""},
		{"2026-7-9", ""},
		{"yesterday", ""},
		{"2026-07-09T14:00:00+25:00", ""},
		{"2026-07-09T14:00[UTC", ""},
		{"", ""},
	}
	for _, c := range cases {
		got, err := ParseDateTime(c.in)
		if (err == nil) != (c.utc != "") {
			t.Errorf("ParseDateTime(%q) err = %v, want ok=%v", c.in, err, c.utc != "")
			continue
		}
		if err != nil {
			if vcCode(err) != "value_error" || !strings.Contains(err.Error(), c.in) {
				t.Errorf("ParseDateTime(%q) error %v: want value_error naming the text", c.in, err)
			}
			continue
		}
		if s := FormatDateTime(got); s != c.utc {
			t.Errorf("ParseDateTime(%q) renders %q, want %q", c.in, s, c.utc)
		}
	}
}

func TestParseDateTimeKeepsOffset(t *testing.T) {
	d := vcDT(t, "2026-07-16T09:30:00-07:00")
	if _, off := d.T.Zone(); off != -7*3600 {
		t.Errorf("offset = %d, want -25200", off)
	}
	if d.T.Hour() != 9 {
		t.Errorf("local hour = %d, want 9", d.T.Hour())
	}
	if got := FormatZoned(d); got != "2026-07-16T09:30:00-07:00[-07:00]" {
		t.Errorf("FormatZoned = %q", got)
	}
	if got := FormatZoned(vcDT(t, "2026-07-09T14:00Z")); got != "2026-07-09T14:00:00+00:00[UTC]" {
		t.Errorf("FormatZoned UTC = %q", got)
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1kb", "1.5mb", "4kib", "0b", "1_000kb", "9999999999tb", "1..2b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ParseSize(s)
		if !ok {
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d, negative", s, n)
		}
		// The rendering is itself a size literal close to n (within the
		// two-decimal rounding of its unit).
		r := FormatSize(n)
		m, ok := ParseSize(r)
		if !ok {
			t.Fatalf("FormatSize(%d) = %q does not parse", n, r)
		}
		if diff := math.Abs(float64(m) - float64(n)); diff > float64(n)/100+1 {
			t.Fatalf("round trip %q -> %d -> %q -> %d", s, n, r, m)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"250ms", "1h30m", "-90s", "1.5h", "4w2d", "99999999999w", "1us5ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ParseDuration(s)
		if !ok {
			return
		}
		// FormatDuration is exact, so its output parses back to n.
		r := FormatDuration(n)
		m, ok := ParseDuration(r)
		if !ok || m != n {
			t.Fatalf("round trip %q -> %d -> %q -> %d, %v", s, n, r, m, ok)
		}
	})
}

func FuzzParseDateTime(f *testing.F) {
	for _, s := range []string{"2026-07-09T14:00Z", "2026-07-09", "2026-07-16T09:30:00-07:00",
		"2026-07-09T14:00:00.123456789+05:30", "2026-07-09T14:00:00+00:00[UTC]", "0000-01-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDateTime(s)
		if err != nil {
			if vcCode(err) != "value_error" {
				t.Fatalf("ParseDateTime(%q): error %v is not a value_error", s, err)
			}
			return
		}
		// The UTC rendering parses back to the same instant.
		r := FormatDateTime(d)
		e, err := ParseDateTime(r)
		if err != nil || !e.T.Equal(d.T) {
			t.Fatalf("round trip %q -> %q -> %v, %v", s, r, e.T, err)
		}
	})
}

func FuzzParseTimeOfDay(f *testing.F) {
	for _, s := range []string{"10:00am", "23:15:45", "7:05pm", "12:00am"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseTimeOfDay(s)
		if !ok {
			return
		}
		if v < 0 || v >= Time(24*time.Hour) {
			t.Fatalf("ParseTimeOfDay(%q) = %d out of day", s, v)
		}
		w, ok := ParseTimeOfDay(FormatTime(v))
		if !ok || w != v {
			t.Fatalf("round trip %q -> %q -> %d", s, FormatTime(v), w)
		}
	})
}
