package kernel_test

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// journal.query passes a row's stored outputs text through to its answer
// (journal.Query.Stored). A row whose outputs text was changed
// outside the journal is answered as before: in another JSON shape,
// decoded into the same outputs; corrupt, or nested past any outputs,
// the query fails as an internal error naming the row, the connection
// stays usable, and a reader whose scope leaves the row out is answered.
func TestE2EJournalQueryStoredOutputs(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	state := filepath.Join(filepath.Dir(dir), "state")
	k := journalKernel(t, sock, dir, store, state)
	ctx := testCtx(t)
	owner := k.attached(t, "main", "")
	worker := k.attached(t, "w", k.token(t, "agent:worker"))
	for _, src := range []string{`"é\n\"" + "x"`, "1 / 0", "1 + 1"} {
		_ = owner.Call(ctx, "exec", map[string]any{"src": src}, nil)
	}
	if _, err := worker.Exec(ctx, client.ExecParams{Src: "3 + 3"}); err != nil {
		t.Fatal(err)
	}
	type rawEntry struct {
		ID      int64           `json:"id"`
		Src     string          `json:"src"`
		Outputs json.RawMessage `json:"outputs"`
	}
	query := func(c *client.Client) ([]rawEntry, error) {
		var es []rawEntry
		err := c.Call(ctx, "journal.query", map[string]any{"limit": 10}, &es)
		return es, err
	}
	before, err := query(owner)
	if err != nil || len(before) != 4 {
		t.Fatalf("owner's journal: %v, %v", before, err)
	}
	mine, err := query(worker)
	if err != nil || len(mine) != 1 || mine[0].Src != "3 + 3" || !strings.Contains(string(mine[0].Outputs), `"kind":"value"`) {
		t.Fatalf("worker's journal: %v, %v", mine, err)
	}
	target := before[1] // 1 + 1, the owner's (the worker's 3 + 3 is newer)
	if target.Src != "1 + 1" || len(target.Outputs) < 10 {
		t.Fatalf("second row: %s %s", target.Src, target.Outputs)
	}

	db, err := sql.Open("sqlite", "file:"+filepath.Join(state, "journal.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	current := string(target.Outputs)
	edit := func(text string) {
		t.Helper()
		var packed string
		if err := db.QueryRow(`SELECT packed FROM entries WHERE id = ?`, target.ID).Scan(&packed); err != nil {
			t.Fatal(err)
		}
		field := strconv.Itoa(len(current)) + ":" + current
		if strings.Count(packed, field) != 1 {
			t.Fatalf("outputs %q not in the packed row %q", current, packed)
		}
		packed = strings.Replace(packed, field, strconv.Itoa(len(text))+":"+text, 1)
		if _, err := db.Exec(`UPDATE entries SET packed = ? WHERE id = ?`, packed, target.ID); err != nil {
			t.Fatal(err)
		}
		current = text
	}

	// Another JSON shape for the same outputs: the same answer.
	var outs []map[string]any
	if err := json.Unmarshal(target.Outputs, &outs); err != nil || len(outs) == 0 {
		t.Fatalf("outputs %s: %v", target.Outputs, err)
	}
	spaced, _ := json.MarshalIndent(outs, "", " ")
	edit(string(spaced))
	after, err := query(owner)
	if err != nil || len(after) != 4 || after[1].ID != target.ID || string(after[1].Outputs) != string(target.Outputs) {
		t.Fatalf("outputs stored as %s: answered %v, %v; want %s", spaced, after, err, target.Outputs)
	}

	for _, bad := range []string{
		`[{"kind":"value","hash":"blake3:ab","len":1}`,
		strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000),
		`[{"kind":"value","hash":"blake3:ab","len":1e400}]`,
	} {
		edit(bad)
		_, err := query(owner)
		wantCode(t, "corrupt outputs", err, proto.CodeInternalError)
		prefix := "journal: journal: query: entry " + strconv.FormatInt(target.ID, 10) + ": outputs: "
		if err == nil || !strings.Contains(err.Error(), prefix) {
			t.Fatalf("outputs %.60q: error %v, want one naming the row's outputs (%q)", bad, err, prefix)
		}
		if got, err := query(worker); err != nil || len(got) != 1 || string(got[0].Outputs) != string(mine[0].Outputs) {
			t.Fatalf("worker's journal beside a corrupt row: %v, %v", got, err)
		}
	}
	if _, err := owner.Exec(ctx, client.ExecParams{Src: "2 + 2"}); err != nil {
		t.Fatalf("the connection after a failed query: %v", err)
	}
}
