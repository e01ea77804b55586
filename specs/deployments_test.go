package specs

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
	"github.com/zclconf/go-cty/cty"
)

// The seed suite's deployments, one spec each, and the answer format its
// store's edn_q gives.
var deployments = []struct {
	file, backend, driver, answer string
}{
	{"deployments/sqlite-ext.hcl", "sqlite-ext", "sqlite", "edn"},
	{"deployments/duckdb.hcl", "duckdb-ext", "duckdb", "edn"},
	{"deployments/pg_mentat.hcl", "pg_mentat", "postgres", "json"},
}

// The eight queries, each with the Datalog its explain binds as :q.
var deploymentQueries = []string{"q1", "q2", "q3", "q4", "pull", "as_of", "since", "input_bindings"}

// TestDeploymentsComposeTheWorkload: each deployment spec validates, and
// reads its dataset, scales, scenarios and checks from specs/mentat (the
// same blocks as full.hcl, not copies); what it changes is how the
// queries reach the store: edn_q with the Datalog and inputs bound, the
// store's answer format, and edn_t for write_mixed's write.
func TestDeploymentsComposeTheWorkload(t *testing.T) {
	full := load(t, "full.hcl")
	mentatDir, _ := filepath.Abs("mentat")
	for _, d := range deployments {
		t.Run(d.backend, func(t *testing.T) {
			spec := load(t, d.file)
			same := func(what string, a, b string) {
				t.Helper()
				aa, _ := filepath.Abs(a)
				bb, _ := filepath.Abs(b)
				if aa != bb || !strings.HasPrefix(aa, mentatDir+string(filepath.Separator)) {
					t.Errorf("%s declared in %s, full.hcl's in %s: not the shared workload", what, a, b)
				}
			}
			same("dataset", spec.SelectedDataset().DeclRange.Filename, full.SelectedDataset().DeclRange.Filename)
			if len(spec.Scales) != len(full.Scales) {
				t.Errorf("%d scales, full.hcl %d", len(spec.Scales), len(full.Scales))
			}
			for _, sc := range spec.Scales {
				same("scale "+sc.Name, sc.DeclRange.Filename, full.Scale(sc.Name).DeclRange.Filename)
			}
			for _, sc := range spec.Scenarios {
				fs := findScenario(full, sc.Name)
				if fs == nil {
					t.Errorf("scenario %s is not full.hcl's", sc.Name)
					continue
				}
				same("scenario "+sc.Name, sc.DeclRange.Filename, fs.DeclRange.Filename)
				if names(sc) != names(fs) {
					t.Errorf("scenario %s: checks %q, full.hcl's %q", sc.Name, names(sc), names(fs))
				}
			}
			if findScenario(spec, "write_mixed") == nil {
				t.Error("no write_mixed")
			}
			be := spec.Backend(d.backend)
			if be == nil || len(spec.Backends) != 1 {
				t.Fatalf("want the one backend %s, have %d", d.backend, len(spec.Backends))
			}
			ctx := spec.CellContext(config.Cell{Scale: spec.Scale("xs"), Backend: be}, cty.NilVal)
			bc, diags := resolve.Backend(be, ctx, d.driver)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if bc.Explain != "SELECT mentat_explain(:q)" || len(bc.Extensions) != 1 || bc.Load.Statement != "SELECT edn_t(:tx)" ||
				bc.Load.Format != "edn" || bc.Load.BatchDatoms <= 0 || bc.Load.BatchDatoms >= 5461 {
				t.Errorf("backend: explain %q, extensions %v, load %+v", bc.Explain, bc.Extensions, bc.Load)
			}
			for _, n := range deploymentQueries {
				q, diags := resolve.Query(spec.Query(n), ctx, d.driver)
				if diags.HasErrors() {
					t.Fatalf("query %s: %s", n, diags.Error())
				}
				if q.Answer != d.answer || q.EDN == "" || !strings.HasPrefix(q.EDN, "[:find ") || !strings.Contains(q.SQL, "edn_q(") {
					t.Errorf("query %s: answer %q, edn %q, sql %q", n, q.Answer, q.EDN, q.SQL)
				}
				// The Datalog is a bound parameter, never a literal of the SQL.
				if strings.Contains(q.SQL, "[:find") || q.Params["q_text"].AsString() != q.EDN {
					t.Errorf("query %s: the Datalog is not bound as :q_text: %q", n, q.SQL)
				}
			}
			w, _ := resolve.Query(spec.Query("write_state"), ctx, d.driver)
			if !strings.Contains(w.SQL, "edn_t(") {
				t.Errorf("write_state: %q", w.SQL)
			}
		})
	}
}

// TestDeploymentSQLParses prepares every statement of the deployments'
// queries on the real database (SQLite and DuckDB in memory, PostgreSQL
// at MENTAT_SPEC_PG_DSN): the one error allowed is the mentat function
// this machine does not have; a syntax error, a wrong cast or a JSON
// function the database lacks fails.
func TestDeploymentSQLParses(t *testing.T) {
	for _, d := range deployments {
		t.Run(d.backend, func(t *testing.T) {
			spec := load(t, d.file)
			be := spec.Backend(d.backend)
			ctx := spec.CellContext(config.Cell{Scale: spec.Scale("xs"), Backend: be}, cty.NilVal)
			prepare, missing := preparer(t, d.driver)
			for _, n := range append(deploymentQueries, "write_state", "state_now") {
				q, diags := resolve.Query(spec.Query(n), ctx, d.driver)
				if diags.HasErrors() {
					t.Fatalf("query %s: %s", n, diags.Error())
				}
				for _, st := range sqltext.Statements(q.SQL) {
					b, err := sqltext.Bind(st, placeholder(d.driver))
					if err != nil {
						t.Fatalf("query %s: %v", n, err)
					}
					err = prepare(b.SQL)
					if err == nil || !missing(err) {
						t.Errorf("query %s: preparing %q: %v (want only the missing mentat function)", n, b.SQL, err)
					}
				}
			}
		})
	}
}

func placeholder(driver string) func(int) string {
	if driver == "postgres" {
		return func(i int) string { return "$" + strconv.Itoa(i) }
	}
	return func(int) string { return "?" }
}

// preparer opens the database of driver and returns a function that
// prepares a statement on it, and the test of the error a missing
// edn_q/edn_t gives there.
func preparer(t *testing.T, driver string) (func(string) error, func(error) bool) {
	t.Helper()
	switch driver {
	case "postgres":
		dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
		if dsn == "" {
			t.Skip("MENTAT_SPEC_PG_DSN is not set")
		}
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		return func(s string) error {
				_, err := conn.Prepare(context.Background(), "", s)
				return err
			}, func(err error) bool {
				return strings.Contains(err.Error(), "SQLSTATE 42883") && (strings.Contains(err.Error(), "function edn_q(") || strings.Contains(err.Error(), "function edn_t("))
			}
	default:
		name := map[string]string{"sqlite": "sqlite3", "duckdb": "duckdb"}[driver]
		db, err := sql.Open(name, "")
		if driver == "sqlite" {
			db, err = sql.Open(name, ":memory:")
		}
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return func(s string) error {
				st, err := db.Prepare(s)
				if err == nil {
					st.Close()
				}
				return err
			}, func(err error) bool {
				m := err.Error()
				return strings.Contains(m, "no such function: edn_") || // SQLite
					strings.Contains(m, "Scalar Function with name edn_q does not exist") || strings.Contains(m, "Scalar Function with name edn_t does not exist")
			}
	}
}
