package journal

// sqlAppliedPages reads the database's page count, free-list length and
// page size in one statement (the three PRAGMAs' table-valued forms).
// AppliedBytes runs on the kernel's disk-budget check, every
// RetentionEvery finished rows (internal/kernel); as three PRAGMA
// statements, each prepared, stepped and finalized anew through
// database/sql, it cost a busy kernel 1-2% of its CPU. One statement,
// prepared once (readStmt's cache), reads the same figures from one
// snapshot.
const sqlAppliedPages = `SELECT c.page_count, f.freelist_count, s.page_size
	FROM pragma_page_count() c, pragma_freelist_count() f, pragma_page_size() s`

// appliedPages sets pages, free and size from sqlAppliedPages, prepared
// once where the statement cache has room.
func (d *DB) appliedPages(pages, free, size *int64) error {
	st, err := d.readStmt(sqlAppliedPages)
	if err != nil {
		return err
	}
	if st != nil {
		return st.QueryRow().Scan(pages, free, size)
	}
	return d.db.QueryRow(sqlAppliedPages).Scan(pages, free, size)
}
