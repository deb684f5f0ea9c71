package value

import (
	"testing"
	"time"
)

// Test helpers for the value-core tests (prefixed vc to stay clear of the
// method-library tests in this package).

func vcL(items ...Value) *List { return NewList(items) }

// vcR builds a record from alternating key, value arguments.
func vcR(kv ...any) *Record {
	var keys []string
	var vals []Value
	for i := 0; i < len(kv); i += 2 {
		keys = append(keys, kv[i].(string))
		vals = append(vals, kv[i+1].(Value))
	}
	return NewRecord(keys, vals)
}

// vcT builds a table from column names and rows.
func vcT(cols []string, rows ...[]Value) *Table {
	data := make([][]Value, len(cols))
	for c := range cols {
		data[c] = make([]Value, len(rows))
		for r, row := range rows {
			data[c][r] = row[c]
		}
	}
	return &Table{Cols: cols, Data: data, N: len(rows)}
}

func vcDT(t *testing.T, s string) DateTime {
	t.Helper()
	d, err := ParseDateTime(s)
	if err != nil {
		t.Fatalf("ParseDateTime(%q): %v", s, err)
	}
	return d
}

func vcTime(h, m, s int) Time {
	return Time(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second)
}

// vcCode returns the language error code of err, or "" when err is not a
// *Error.
func vcCode(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	return ""
}

const (
	vcKB  = Size(1000)
	vcSec = Duration(time.Second)
)
