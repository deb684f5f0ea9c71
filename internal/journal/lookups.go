package journal

// The texts of the journal's fixed lookups, one place for the code that
// runs them and for TestLookupPlans, which holds each to an indexed plan.
const (
	// sqlLastTSeq: the last session.transcript number of (principal, session).
	sqlLastTSeq = `SELECT max(tseq) FROM entries WHERE principal = ? AND session = ? AND tseq IS NOT NULL`
	// sqlByRef: the newest row of (principal, session) stored as out:N.
	sqlByRef = `SELECT ` + entryCols + ` FROM entries WHERE principal = ? AND session = ? AND ref_n = ?
		ORDER BY id DESC LIMIT 1`
	// sqlMaxRef: the largest out:N of (principal, session).
	sqlMaxRef = `SELECT max(ref_n) FROM entries WHERE principal = ? AND session = ? AND ref_n IS NOT NULL`
	// sqlSeqOfPSeq: the seq of principal's newest row numbered pseq or below.
	sqlSeqOfPSeq = `SELECT seq FROM entries WHERE principal = ? AND pseq IS NOT NULL AND pseq <= ? ORDER BY pseq DESC LIMIT 1`
	// sqlLastPSeq: principal's last number on the journal channel.
	sqlLastPSeq = `SELECT max(pseq) FROM entries WHERE principal = ? AND pseq IS NOT NULL`
	// sqlLastPID: principal's last own row number.
	sqlLastPID = `SELECT max(pid) FROM entries WHERE principal = ? AND pid IS NOT NULL`
	// sqlGetOwn: principal's exec row by its own number.
	sqlGetOwn = `SELECT ` + entryCols + ` FROM entries WHERE principal = ? AND pid = ?`
)
