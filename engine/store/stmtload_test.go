package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/edn"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/store"
)

func sqliteBackend(t *testing.T) drivers.Backend {
	t.Helper()
	drv, _ := drivers.Default.Lookup("sqlite")
	be, err := drv.Open(context.Background(), drivers.Config{Backend: "sqlite", Scale: "xs",
		Options: map[string]string{"path": filepath.Join(t.TempDir(), "st.sqlite")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	return be
}

func queryRows(t *testing.T, s drivers.Session, sql string) [][]any {
	t.Helper()
	st, err := s.Prepare(context.Background(), sql)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var rows [][]any
	if _, err := st.Query(context.Background(), nil, &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestStatementLoadBatches: the statement gets the schema first, then
// every datom exactly once in batches of at most batch_datoms, in EDN
// and JSON, with one job or several.
func TestStatementLoadBatches(t *testing.T) {
	ctx := context.Background()
	ds := datagentest.Finished(t, datagentest.ScaleXS, true)
	for _, tc := range []struct {
		format string
		jobs   int
	}{{"edn", 1}, {"json", 1}, {"json", 3}} {
		t.Run(tc.format, func(t *testing.T) {
			be := sqliteBackend(t)
			s, _ := be.Session(ctx)
			defer s.Close()
			if err := s.Exec(ctx, "CREATE TABLE got (id INTEGER PRIMARY KEY, body TEXT)"); err != nil {
				t.Fatal(err)
			}
			lc := resolve.Load{Tables: map[string]string{"attrs": "a", "text": "t", "int": "i", "real": "r"},
				Statement: "INSERT INTO got (body) VALUES (:tx)", Format: tc.format, BatchDatoms: 700, IDs: resolve.IDsEntity, Jobs: tc.jobs}
			res, err := store.StatementLoad(ctx, be, ds, lc, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			rows := queryRows(t, s, "SELECT body FROM got ORDER BY id")
			var datoms int64
			for i, r := range rows {
				items := decodeBatch(t, tc.format, r[0].(string))
				if i == 0 {
					if len(items) != len(ds.Attrs()) {
						t.Fatalf("first call: %d items, want the schema's %d attributes", len(items), len(ds.Attrs()))
					}
					continue
				}
				if len(items) == 0 || len(items) > lc.BatchDatoms {
					t.Errorf("batch %d has %d datoms, want 1..%d", i, len(items), lc.BatchDatoms)
				}
				datoms += int64(len(items))
			}
			st, err := ds.Stats(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			if want := st.Datoms; datoms != want || res.Datoms != want {
				t.Errorf("%d datoms passed, result says %d, want %d", datoms, res.Datoms, want)
			}
			var log strings.Builder
			store.WriteLog(&log, "xs/sqlite", res, nil)
			for _, want := range []string{"load through a statement, " + fmt.Sprint(tc.jobs) + " job(s)", fmt.Sprintf("batches: %d\n", len(rows)-1)} {
				if !strings.Contains(log.String(), want) {
					t.Errorf("load log lacks %q:\n%s", want, log.String())
				}
			}
			if strings.Contains(log.String(), "total: table") {
				t.Errorf("the load log counts table rows the engine did not write:\n%s", log.String())
			}
		})
	}
}

func decodeBatch(t *testing.T, format, body string) []any {
	t.Helper()
	if format == "json" {
		var items []any
		if err := json.Unmarshal([]byte(body), &items); err != nil {
			t.Fatalf("batch is not JSON: %v: %.100s", err, body)
		}
		return items
	}
	v, err := edn.Decode([]byte(body))
	if err != nil {
		t.Fatalf("batch is not EDN: %v: %.100s", err, body)
	}
	return v.([]any)
}

// TestStatementLoadErrors: a batch the database refuses ends the load
// naming the batch, and a statement of several rolls its batch back; a
// cap cuts the load without an error.
func TestStatementLoadErrors(t *testing.T) {
	ctx := context.Background()
	ds := datagentest.Finished(t, datagentest.ScaleXS, false)
	be := sqliteBackend(t)
	s, _ := be.Session(ctx)
	defer s.Close()
	for _, ddl := range []string{"CREATE TABLE got (body TEXT)", "CREATE TABLE objects_only (body TEXT CHECK (json_type(body, '$[0]') = 'object'))"} {
		if err := s.Exec(ctx, ddl); err != nil {
			t.Fatal(err)
		}
	}
	// The schema goes in; the first datom batch fails at its second
	// statement, and its first statement's row is rolled back.
	lc := resolve.Load{Statement: "INSERT INTO got VALUES (:tx); INSERT INTO objects_only VALUES (:tx)",
		Format: "json", BatchDatoms: 100, IDs: resolve.IDsEntity, Jobs: 1}
	_, err := store.StatementLoad(ctx, be, ds, lc, 0, nil)
	if err == nil || !strings.Contains(err.Error(), "batch 1 (100 datoms through tx ") {
		t.Fatalf("error %v, want one naming batch 1", err)
	}
	if n := queryRows(t, s, "SELECT count(*) FROM got")[0][0].(int64); n != 1 {
		t.Errorf("%d rows after the failed batch, want the schema's 1 (the batch rolled back)", n)
	}
	res, err := store.StatementLoad(ctx, be, ds, resolve.Load{Statement: "INSERT INTO got VALUES (:tx)", Format: "edn", BatchDatoms: 10, Jobs: 1}, 1, nil)
	if err != nil || !res.Capped {
		t.Errorf("a load past its cap: capped %v, err %v; want capped and no error", res.Capped, err)
	}
}
