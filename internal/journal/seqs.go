package journal

import (
	"database/sql"
	"fmt"
)

// seqState hands out the event-channel numbers of finished rows: the
// journal channel's seq (one sequence for the whole journal), each
// principal's pseq on it, and each (principal, session)'s
// session.transcript tseq. Numbers are taken by
// next and made permanent by commit once the row's commit succeeded, so a
// failed commit leaves no gap. All under the DB's write lock.
type seqState struct {
	last uint64
	// tlast caches the last tseq of the streams written lately; a stream
	// not in it is read from the database. Bounded by maxSeqStreams.
	tlast map[streamKey]uint64
	// plast caches the last pseq of the principals written lately, like
	// tlast. Bounded by maxSeqStreams.
	plast map[string]uint64
	// idlast caches the last pid of the principals written lately, like
	// plast. Bounded by maxSeqStreams.
	idlast map[string]int64
}

type streamKey struct{ principal, session string }

// maxSeqStreams bounds the transcript streams whose last tseq is cached;
// beyond it the cache is emptied and refilled from the database.
const maxSeqStreams = 4096

func (s *seqState) load(db *sql.DB) error {
	var last sql.NullInt64
	if err := db.QueryRow(`SELECT max(seq) FROM entries`).Scan(&last); err != nil {
		return fmt.Errorf("journal: reading the last seq: %w", err)
	}
	s.last = uint64(last.Int64)
	s.tlast = map[streamKey]uint64{}
	s.plast = map[string]uint64{}
	s.idlast = map[string]int64{}
	return nil
}

// next returns the seq, pseq (and tseq, with e.Transcript) the row
// finishing now would take: 0 for a statement row, which the channels do
// not carry. A stream not cached is read from the database, after
// applying every write (call with d.wmu held).
func (s *seqState) next(d *DB, kind string, e *Entry) (seq, tseq, pseq uint64, err error) {
	if kind != KindExec {
		return 0, 0, 0, nil
	}
	if e.Transcript {
		k := streamKey{e.Principal, e.Session}
		t, ok := s.tlast[k]
		if !ok {
			if err := d.sync(); err != nil {
				return 0, 0, 0, err
			}
			var last sql.NullInt64
			if err := d.db.QueryRow(sqlLastTSeq,
				e.Principal, e.Session).Scan(&last); err != nil {
				return 0, 0, 0, fmt.Errorf("journal: reading the last transcript seq: %w", err)
			}
			t = uint64(last.Int64)
		}
		tseq = t + 1
	}
	p, ok := s.plast[e.Principal]
	if !ok {
		if p, err = d.lastPSeqLocked(e.Principal); err != nil {
			return 0, 0, 0, err
		}
	}
	return s.last + 1, tseq, p + 1, nil
}

// commit makes the numbers next returned permanent.
func (s *seqState) commit(kind string, e *Entry, seq, tseq, pseq uint64) {
	if kind != KindExec {
		return
	}
	s.last = seq
	if tseq != 0 {
		if len(s.tlast) >= maxSeqStreams {
			clear(s.tlast)
		}
		s.tlast[streamKey{e.Principal, e.Session}] = tseq
	}
	if pseq != 0 {
		if len(s.plast) >= maxSeqStreams {
			clear(s.plast)
		}
		s.plast[e.Principal] = pseq
	}
}

// lastPSeqLocked reads principal's last pseq from the database, after
// applying every write (call with d.wmu held).
func (d *DB) lastPSeqLocked(principal string) (uint64, error) {
	if err := d.sync(); err != nil {
		return 0, err
	}
	var last sql.NullInt64
	if err := d.db.QueryRow(sqlLastPSeq, principal).Scan(&last); err != nil {
		return 0, fmt.Errorf("journal: reading the last principal seq: %w", err)
	}
	return uint64(last.Int64), nil
}

// nextPID returns the pid the exec row of principal written now would
// take (call with d.wmu held).
func (s *seqState) nextPID(d *DB, principal string) (int64, error) {
	p, ok := s.idlast[principal]
	if !ok {
		if err := d.sync(); err != nil {
			return 0, err
		}
		var last sql.NullInt64
		if err := d.db.QueryRow(sqlLastPID, principal).Scan(&last); err != nil {
			return 0, fmt.Errorf("journal: reading the last principal id: %w", err)
		}
		p = last.Int64
	}
	return p + 1, nil
}

// commitPID makes the pid nextPID returned permanent (0: none taken).
func (s *seqState) commitPID(principal string, pid int64) {
	if pid == 0 {
		return
	}
	if len(s.idlast) >= maxSeqStreams {
		clear(s.idlast)
	}
	s.idlast[principal] = pid
}
