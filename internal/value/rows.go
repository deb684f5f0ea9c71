package value

// TableFromRows builds a table with columns cols from rows, each row one
// value per column in cols' order.
func TableFromRows(cols []string, rows [][]Value) *Table {
	data := make([][]Value, len(cols))
	for c := range cols {
		data[c] = make([]Value, len(rows))
		for r, row := range rows {
			data[c][r] = row[c]
		}
	}
	return &Table{Cols: cols, Data: data, N: len(rows)}
}
