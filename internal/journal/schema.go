package journal

import (
	"database/sql"
	"encoding/json"
	"fmt"
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
	// v2: the head column, crash marking, typed effect kinds, and an index
	// for every Query filter. Rows from v1 get head and effect kinds
	// backfilled.
	func(tx *sql.Tx) error {
		if err := execAll(tx,
			`ALTER TABLE entries ADD COLUMN head TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE entries ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0`,
			`CREATE TABLE entry_effects (
				entry_id INTEGER NOT NULL REFERENCES entries(id),
				kind     TEXT    NOT NULL,
				PRIMARY KEY (entry_id, kind)
			) WITHOUT ROWID`,
			`CREATE INDEX entry_effects_kind ON entry_effects(kind, entry_id)`,
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
			`CREATE INDEX entries_parent ON entries(parent, id)`,
			`CREATE INDEX entries_unfinished ON entries(finished) WHERE finished = 0`,
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
		for _, b := range todo {
			if _, err := tx.Exec(`UPDATE entries SET head = ? WHERE id = ?`, b.head, b.id); err != nil {
				return err
			}
			if err := insertKinds(tx, b.id, b.kinds); err != nil {
				return err
			}
		}
		return nil
	},
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
