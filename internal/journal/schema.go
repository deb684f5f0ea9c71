package journal

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// migration moves the schema from version v-1 to v (v is its index + 1).
// Migrations are append-only: a released one is never edited.
type migration func(tx *sql.Tx) error

var migrations = []migration{
	// v1: entries and their outputs.
	func(tx *sql.Tx) error {
		return execAll(tx,
			`CREATE TABLE entries (
				id        INTEGER PRIMARY KEY AUTOINCREMENT,
				kind      TEXT    NOT NULL CHECK (kind IN ('exec', 'stmt')),
				parent    INTEGER REFERENCES entries(id),
				session   TEXT    NOT NULL,
				principal TEXT    NOT NULL,
				start_ns  INTEGER NOT NULL,
				finish_ns INTEGER NOT NULL DEFAULT 0,
				finished  INTEGER NOT NULL DEFAULT 0,
				cwd       TEXT    NOT NULL DEFAULT '',
				src       TEXT    NOT NULL DEFAULT '',
				ast       TEXT,
				effects   TEXT,
				verdict   TEXT    NOT NULL DEFAULT '',
				ok        INTEGER NOT NULL DEFAULT 0,
				status    INTEGER,
				opaque    INTEGER NOT NULL DEFAULT 0
			)`,
			`CREATE TABLE outputs (
				entry_id INTEGER NOT NULL REFERENCES entries(id),
				seq      INTEGER NOT NULL,
				kind     TEXT    NOT NULL,
				hash     TEXT    NOT NULL,
				len      INTEGER NOT NULL,
				PRIMARY KEY (entry_id, seq)
			) WITHOUT ROWID`,
			`CREATE INDEX outputs_hash ON outputs(hash, entry_id)`,
			`CREATE INDEX entries_principal ON entries(principal, id)`,
			`CREATE INDEX entries_session ON entries(session, id)`,
		)
	},
	// v2: the head column, crash marking, effect kinds as a bitmask, the
	// outputs as a JSON column (the outputs table, kept in step by
	// triggers, indexes them by hash), and an index for every Query filter.
	// Rows from v1 get head, mask and outputs backfilled.
	func(tx *sql.Tx) error {
		if err := execAll(tx,
			`ALTER TABLE entries ADD COLUMN head TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE entries ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0`,
			`ALTER TABLE entries ADD COLUMN effect_mask INTEGER NOT NULL DEFAULT 0`,
			`ALTER TABLE entries ADD COLUMN outputs_json TEXT NOT NULL DEFAULT '[]'`,
			// One bit per effect kind ever seen, allocated on first use.
			`CREATE TABLE effect_bits (
				kind TEXT    PRIMARY KEY,
				bit  INTEGER NOT NULL UNIQUE CHECK (bit BETWEEN 0 AND 62)
			)`,
			`UPDATE entries SET outputs_json = coalesce((SELECT json_group_array(json_object('kind', kind, 'hash', hash, 'len', len))
				FROM (SELECT kind, hash, len FROM outputs o WHERE o.entry_id = entries.id ORDER BY seq)), '[]')`,
			`CREATE TRIGGER entries_outputs_ins AFTER INSERT ON entries WHEN new.outputs_json <> '[]' BEGIN
				INSERT INTO outputs(entry_id, seq, kind, hash, len)
				SELECT new.id, CAST(j.key AS INTEGER), j.value ->> 'kind', j.value ->> 'hash', j.value ->> 'len' FROM json_each(new.outputs_json) j;
			END`,
			`CREATE TRIGGER entries_outputs_upd AFTER UPDATE OF outputs_json ON entries BEGIN
				DELETE FROM outputs WHERE entry_id = new.id;
				INSERT INTO outputs(entry_id, seq, kind, hash, len)
				SELECT new.id, CAST(j.key AS INTEGER), j.value ->> 'kind', j.value ->> 'hash', j.value ->> 'len' FROM json_each(new.outputs_json) j;
			END`,
			// Every Query constrains kind, so each filter's index leads with
			// it and ends with id: equality on both, then newest first
			// straight off the index, no sort.
			`DROP INDEX entries_principal`,
			`DROP INDEX entries_session`,
			`CREATE INDEX entries_kind ON entries(kind, id)`,
			`CREATE INDEX entries_principal ON entries(kind, principal, id)`,
			`CREATE INDEX entries_session ON entries(kind, session, id)`,
			`CREATE INDEX entries_head ON entries(kind, head, id)`,
			`CREATE INDEX entries_ok ON entries(kind, ok, id)`,
			`CREATE INDEX entries_start ON entries(start_ns)`,
			// Partial: exec rows (most rows) have no parent and cost it nothing.
			`CREATE INDEX entries_parent ON entries(parent, id) WHERE parent IS NOT NULL`,
		); err != nil {
			return err
		}
		rows, err := tx.Query(`SELECT id, src, effects FROM entries`)
		if err != nil {
			return err
		}
		type back struct {
			id    int64
			head  string
			kinds []string
		}
		var todo []back
		for rows.Next() {
			var id int64
			var src string
			var eff sql.NullString
			if err := rows.Scan(&id, &src, &eff); err != nil {
				rows.Close()
				return err
			}
			kinds, _ := kindsOf(json.RawMessage(eff.String), nil)
			todo = append(todo, back{id, Head(src), kinds})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		bits, err := loadBits(tx)
		if err != nil {
			return err
		}
		for _, b := range todo {
			mask, err := bits.maskFor(tx, b.kinds)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(`UPDATE entries SET head = ?, effect_mask = ? WHERE id = ?`, b.head, mask, b.id); err != nil {
				return err
			}
		}
		return nil
	},
	// v3: what the kernel's event channels are rebuilt from after a
	// restart or once their in-memory rings have moved on: the out:N the
	// exec's value or error was stored as (ref_n), a raised run's language
	// error code, the journal channel's sequence number (seq, assigned when
	// the row finishes) and the session.transcript channel's (tseq, per
	// principal and session). Finished exec rows of older versions get seq
	// from their id, in order.
	func(tx *sql.Tx) error {
		return execAll(tx,
			`ALTER TABLE entries ADD COLUMN ref_n INTEGER`,
			`ALTER TABLE entries ADD COLUMN code TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE entries ADD COLUMN seq INTEGER`,
			`ALTER TABLE entries ADD COLUMN tseq INTEGER`,
			`UPDATE entries SET seq = id WHERE kind = 'exec' AND finished = 1`,
			`CREATE UNIQUE INDEX entries_seq ON entries(seq) WHERE seq IS NOT NULL`,
			`CREATE INDEX entries_tseq ON entries(principal, session, tseq) WHERE tseq IS NOT NULL`,
			`CREATE INDEX entries_ref ON entries(principal, session, ref_n) WHERE ref_n IS NOT NULL`,
		)
	},
	// v4: the intent log's applied position (see log.go).
	func(tx *sql.Tx) error {
		return execAll(tx,
			`CREATE TABLE journal_log (
				id          INTEGER PRIMARY KEY CHECK (id = 1),
				applied_lsn INTEGER NOT NULL
			)`,
			`INSERT INTO journal_log(id, applied_lsn) VALUES (1, 0)`,
		)
	},
	// v5: each row also kept whole in one packed text (packed.go), which
	// reads fetch instead of two dozen columns (each column fetched costs
	// a few calls into SQLite); the columns that only reads used (src,
	// ast, effects) go, the ones filters and indexes use stay.
	func(tx *sql.Tx) error {
		return execAll(tx,
			`ALTER TABLE entries ADD COLUMN packed TEXT NOT NULL DEFAULT ''`,
			// The packing of packed.go, in SQL: SQLite's concatenation
			// keeps every byte, NULs included, and octet_length counts bytes.
			`UPDATE entries SET packed = printf('%d %d %d %d %d %d %d %d %d %d %d %d %d ',
	coalesce(parent, 0), start_ns, finish_ns, finished, interrupted, effect_mask, ok,
	coalesce(status, 0), status IS NULL, opaque, coalesce(ref_n, 0), coalesce(seq, 0), coalesce(tseq, 0))
	|| octet_length(kind) || ':' || kind
	|| octet_length(session) || ':' || session
	|| octet_length(principal) || ':' || principal
	|| octet_length(cwd) || ':' || cwd
	|| octet_length(src) || ':' || src
	|| octet_length(head) || ':' || head
	|| coalesce(octet_length(ast), -1) || ':' || coalesce(ast, '')
	|| coalesce(octet_length(effects), -1) || ':' || coalesce(effects, '')
	|| octet_length(verdict) || ':' || verdict
	|| octet_length(outputs_json) || ':' || outputs_json
	|| octet_length(code) || ':' || code`,
			`ALTER TABLE entries DROP COLUMN src`,
			`ALTER TABLE entries DROP COLUMN ast`,
			`ALTER TABLE entries DROP COLUMN effects`,
		)
	},
	// v6: each principal's own numbering, so that a reader who may see
	// only its own rows is numbered densely and learns nothing of other
	// principals' runs from gaps: a finished exec row's number among its
	// principal's on the journal channel (pseq), and an exec row's number
	// among its principal's rows (pid), the id such a reader is shown.
	// Older rows are numbered in seq and id order.
	func(tx *sql.Tx) error {
		return execAll(tx,
			`ALTER TABLE entries ADD COLUMN pseq INTEGER`,
			`ALTER TABLE entries ADD COLUMN pid INTEGER`,
			`UPDATE entries SET pseq = r.n FROM (SELECT id, row_number() OVER (PARTITION BY principal ORDER BY seq) AS n
				FROM entries WHERE seq IS NOT NULL) AS r WHERE entries.id = r.id`,
			`UPDATE entries SET pid = r.n FROM (SELECT id, row_number() OVER (PARTITION BY principal ORDER BY id) AS n
				FROM entries WHERE kind = 'exec') AS r WHERE entries.id = r.id`,
			`CREATE UNIQUE INDEX entries_pseq ON entries(principal, pseq) WHERE pseq IS NOT NULL`,
			`CREATE UNIQUE INDEX entries_pid ON entries(principal, pid) WHERE pid IS NOT NULL`,
		)
	},
	// v7: the applier writes the outputs table itself, one prepared
	// insert per row, and the triggers that parsed outputs_json with
	// json_each to fill it go (they were half of what applying a row
	// cost). outputs_json is no longer written: rows from here on keep
	// its default, the outputs being in packed and the outputs table;
	// older rows keep theirs (read by nothing but the size estimate).
	func(tx *sql.Tx) error {
		return execAll(tx,
			`DROP TRIGGER entries_outputs_ins`,
			`DROP TRIGGER entries_outputs_upd`,
		)
	},
	// v8: the ok filter's index keeps only the failed rows. Most rows
	// succeed, and each paid an index write for a lookup that walks
	// entries_kind as well: newest first, the successes are most of what
	// it passes. The failures, the rare value, keep an index of their own
	// (ok = 0 is written into the query's text, so that SQLite can use it).
	func(tx *sql.Tx) error {
		return execAll(tx,
			`DROP INDEX entries_ok`,
			`CREATE INDEX entries_failed ON entries(kind, id) WHERE ok = 0`,
		)
	},
	// v9: stored plans and their decisions (plans.go), so that a restart
	// keeps every plan, approval ticket, denial, expiry and applied-once
	// mark. A plan that can no longer run keeps a row (its tombstone,
	// ended_ns set, source and plan emptied) so its ref can say why.
	func(tx *sql.Tx) error {
		return execAll(tx,
			`CREATE TABLE plans (
				ref        TEXT    NOT NULL UNIQUE,
				principal  TEXT    NOT NULL,
				session    TEXT    NOT NULL,
				src        TEXT    NOT NULL,
				plan       TEXT    NOT NULL,
				verdict    TEXT    NOT NULL,
				reasons    TEXT    NOT NULL DEFAULT '[]',
				state      TEXT    NOT NULL,
				approver   TEXT    NOT NULL DEFAULT '',
				uncovered  TEXT    NOT NULL DEFAULT '[]',
				ticket     TEXT    NOT NULL DEFAULT '',
				created_ns INTEGER NOT NULL,
				expires_ns INTEGER NOT NULL,
				ended_ns   INTEGER NOT NULL DEFAULT 0
			)`,
		)
	},
	// v10: task records outlive their kernel (tasks.go): one row per
	// retained task, so a restarted kernel reports the tasks that were
	// running as interrupted and numbers new ones above every old one.
	func(tx *sql.Tx) error {
		return execAll(tx,
			`CREATE TABLE tasks (
				principal   TEXT NOT NULL,
				session     TEXT NOT NULL,
				seq         INTEGER NOT NULL,
				state       TEXT NOT NULL,
				started_ns  INTEGER NOT NULL,
				finished_ns INTEGER NOT NULL DEFAULT 0,
				result_ref  TEXT NOT NULL DEFAULT '',
				error       TEXT NOT NULL DEFAULT '',
				language    INTEGER NOT NULL DEFAULT 0,
				descr       TEXT NOT NULL DEFAULT '',
				out_bytes   INTEGER NOT NULL DEFAULT -1,
				PRIMARY KEY (principal, session, seq)
			)`,
			`CREATE INDEX tasks_age ON tasks(started_ns)`,
		)
	},
	// v11: the stored plans in the order a restart reads them (Plans:
	// oldest first, at most MaxPlanRows), so a journal holding many more
	// plans than that costs a restart MaxPlanRows rows of the index, not
	// a sort of every plan.
	func(tx *sql.Tx) error {
		return execAll(tx, `CREATE INDEX plans_age ON plans(created_ns, ref)`)
	},
	// v12: the two foreign keys (an entry's parent, an outputs row's
	// entry) are checked when the transaction commits instead of after
	// each statement (deferFKs). A statement that may fail half done on
	// an immediate key has SQLite copy every page it changes into a
	// statement journal first, which cost the applier's multi-row inserts
	// a sixth of their CPU (applymulti.go); the applier rolls a whole
	// batch back on any failure, so the copies bought it nothing.
	deferFKs,
}

// deferFKs makes the foreign keys of entries and outputs DEFERRABLE
// INITIALLY DEFERRED by editing their tables' text in sqlite_schema, the
// way SQLite documents for changes that leave the stored format as it is
// (https://sqlite.org/lang_altertable.html, "Making other kinds of table
// schema changes"): no row is rewritten, and the keys are enforced as
// before, at the commit. The schema version is bumped so that every
// connection reads the schema again.
func deferFKs(tx *sql.Tx) error {
	const ref = `REFERENCES entries(id)`
	texts := map[string]string{}
	for _, name := range []string{"entries", "outputs"} {
		var text string
		if err := tx.QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?`, name).Scan(&text); err != nil {
			return err
		}
		if n := strings.Count(text, ref); n != 1 {
			return fmt.Errorf("table %s names %q %d times, want once", name, ref, n)
		}
		texts[name] = strings.Replace(text, ref, ref+` DEFERRABLE INITIALLY DEFERRED`, 1)
	}
	var version int
	if err := tx.QueryRow(`PRAGMA schema_version`).Scan(&version); err != nil {
		return err
	}
	if _, err := tx.Exec(`PRAGMA writable_schema = ON`); err != nil {
		return err
	}
	for name, text := range texts {
		if _, err := tx.Exec(`UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?`, text, name); err != nil {
			_, _ = tx.Exec(`PRAGMA writable_schema = RESET`)
			return err
		}
	}
	if _, err := tx.Exec(fmt.Sprintf(`PRAGMA schema_version = %d`, version+1)); err != nil {
		_, _ = tx.Exec(`PRAGMA writable_schema = RESET`)
		return err
	}
	_, err := tx.Exec(`PRAGMA writable_schema = RESET`)
	return err
}

// SchemaVersion is the schema version this build writes.
var SchemaVersion = len(migrations)

func execAll(tx *sql.Tx, stmts ...string) error {
	for _, s := range stmts {
		if _, err := tx.Exec(s); err != nil {
			return fmt.Errorf("%w (in %.60q)", err, s)
		}
	}
	return nil
}

// migrate brings db to version target (<= SchemaVersion), one transaction
// per step, recording each in schema_migrations.
func migrate(db *sql.DB, target int) error {
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		applied_ns INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("journal: creating migrations table: %w", err)
	}
	var cur int
	if err := db.QueryRow(`SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&cur); err != nil {
		return fmt.Errorf("journal: reading schema version: %w", err)
	}
	if cur > len(migrations) {
		return fmt.Errorf("%w: database is version %d, this build knows %d", ErrSchemaTooNew, cur, len(migrations))
	}
	for v := cur + 1; v <= target; v++ {
		tx, err := db.Begin()
		if err != nil {
			return fmt.Errorf("journal: migration %d: %w", v, err)
		}
		if err := migrations[v-1](tx); err != nil {
			tx.Rollback()
			return fmt.Errorf("journal: migration %d: %w", v, err)
		}
		if _, err := tx.Exec(`INSERT INTO schema_migrations(version, applied_ns) VALUES (?, ?)`, v, time.Now().UnixNano()); err != nil {
			tx.Rollback()
			return fmt.Errorf("journal: migration %d: %w", v, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("journal: migration %d: %w", v, err)
		}
	}
	return nil
}
