package capacity_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/kinds/capacity"
	"github.com/mentat-spec/mentat-spec/engine/spectest"
)

// hotRowCapacity searches the rate two connections sustain when every
// call updates one row and holds its lock 20 ms: past about 50 calls a
// second they queue on the lock. hot_clients searches the most clients:
// one client has no one to wait for, two wait for each other's row lock
// and call no faster than one, so the search breaks at two on
// throughput, with the lock waits as the database's reason.
const hotRowCapacity = `query "hot_row" {
  sql = "WITH u AS (UPDATE attrs SET ident = ident WHERE a = (SELECT min(a) FROM attrs) RETURNING a) SELECT pg_sleep(0.02), a FROM u"
}

scenario "hot_capacity" {
  kind         = "capacity"
  start_rate   = 10
  max_rate     = 400
  repeats      = 1
  max_probes   = 8
  max_s        = 60
  min_window_s = 0.5
  max_window_s = 1
  service_level {
    percentile = 99
    max_ms     = 100
  }
  read {
    clients = 2
    query   = query.hot_row
  }
}

scenario "hot_clients" {
  kind         = "capacity"
  search       = "clients"
  max_clients  = 2
  repeats      = 1
  max_probes   = 4
  max_s        = 60
  min_window_s = 1
  max_window_s = 1
  service_level {
    percentile = 99
    max_ms     = 1000
  }
  read {
    query = query.hot_row
  }
}
`

// runSpec runs quickstart with the files added on backend at xs and
// returns the results directory and the run's log.
func runSpec(t *testing.T, backend string, scenarios string, files map[string]string, vars ...config.VarArg) (string, string) {
	t.Helper()
	dir := t.TempDir()
	paths := append([]string{filepath.Join(spectest.Root(), "examples", "quickstart.hcl")}, spectest.Overrides(t, dir, files)...)
	vars = append(vars, config.VarArg{Name: "scenarios", Value: scenarios}, config.VarArg{Name: "scales", Value: `["xs"]`},
		config.VarArg{Name: "backends", Value: `["` + backend + `"]`}, config.VarArg{Name: "data_dir", Value: filepath.Join(dir, "data")})
	out := filepath.Join(dir, "results")
	log := &lockedLog{}
	spectest.Run(t, spectest.Plan(t, paths, vars...), out, log)
	return out, log.String()
}

// whyRows are the rows of summary.md's "why each search broke" table
// for scenario.
func whyRows(t *testing.T, out, scenario string) []string {
	t.Helper()
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(summary)
	i := strings.Index(s, "Why each search broke")
	if i < 0 {
		t.Fatalf("summary.md lacks why the search broke:\n%s", s)
	}
	var rows []string
	for _, l := range strings.Split(s[i:], "\n") {
		if strings.Contains(l, "| "+scenario+" |") {
			rows = append(rows, l)
		}
	}
	t.Logf("%s", strings.Join(rows, "\n"))
	return rows
}

// A capacity's breaking point on PostgreSQL: summary.md's section says
// what moved between the last probe within the capacity and the first
// past it, then what the database said during the one against the
// other, from each probe's own evidence (logs/capacity-evidence.csv),
// never the whole search's; the run's log says it too. The clients
// search's break has a cause that moves the evidence by design, the
// row lock two clients wait on: it is the database's first reason.
func TestCapacityBreakingPointWhy(t *testing.T) {
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is unset")
	}
	db := fmt.Sprintf("mentat_whycap_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	t.Cleanup(func() { dropPG(t, dsn, db) })
	out, log := runSpec(t, "postgres", `["hot_capacity","hot_clients"]`,
		map[string]string{"hot.hcl": hotRowCapacity, "pg_override.hcl": "backend \"postgres\" {\n  database = \"" + db + "\"\n}\n"},
		config.VarArg{Name: "pg_dsn", Value: dsn})
	if !strings.Contains(log, "hot_capacity: capacity broke between ") {
		t.Errorf("the run's log lacks where the rate search broke:\n%s", log)
	}
	// Which bound broke first, and by how much latency and lateness
	// moved, is the machine's; that one did, and what, is said first.
	rate := whyRows(t, out, "hot_capacity")
	if len(rate) == 0 || !strings.Contains(rate[0], "| 1 | broke ") {
		t.Errorf("the rate search's why lacks the bound broken first: %q", rate)
	}
	for _, l := range rate {
		if strings.Contains(l, "over the whole search") {
			t.Errorf("the why falls back on the whole search's evidence: %s", l)
		}
	}
	// The clients search: 1 client held, 2 broke on throughput; the
	// database's first reason is the lock waits of the two.
	clients := whyRows(t, out, "hot_clients")
	first := "" // the first reason that is not the probes' own
	for _, l := range clients {
		cells := strings.Split(l, " | ")
		what := strings.TrimSuffix(cells[len(cells)-1], " |")
		own := false
		for _, p := range []string{"broke ", "p50 ", "p99 ", "achieved share ", "late calls ", "failed calls ", "dropped calls "} {
			own = own || strings.HasPrefix(what, p)
		}
		if !own {
			first = l
			break
		}
	}
	if !strings.Contains(first, "| 1 clients | 2 clients |") || !strings.Contains(first, "wait events") || !strings.Contains(first, "Lock:") {
		t.Errorf("the clients search's first reason from the database is not its lock waits: %q", first)
	}
	if i := strings.Index(log, "hot_clients: capacity broke between 1 clients and 2 clients: "); i < 0 || !strings.Contains(log[i:], "Lock:") {
		t.Errorf("the run's log lacks the lock waits where the clients search broke:\n%s", log)
	}
	if page, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(page), "wait events (share of active sessions): Lock:") {
		t.Errorf("report.html lacks the lock waits where the clients search broke (%v)", err)
	}
	ev, err := os.ReadFile(filepath.Join(out, "logs", "capacity-evidence.csv"))
	if err != nil || !strings.Contains(string(ev), "hot_capacity,postgres,xs,2,read,1,split,,server_exec_ms,") ||
		!strings.Contains(string(ev), "hot_clients,postgres,xs,2,read,2,pg_stat_activity,,wait:Lock:") {
		t.Errorf("logs/capacity-evidence.csv lacks the probes' splits and waits (%v):\n%s", err, ev)
	}
}

// A SQLite capacity search still runs, each probe with SQLite's own
// statement counters in logs/capacity-evidence.csv.
func TestCapacityProbeEvidenceSQLite(t *testing.T) {
	const spec = `query "by_id" {
  sql = "SELECT count(*) FROM attrs WHERE a = (SELECT min(a) FROM attrs)"
}

scenario "lite_clients" {
  kind         = "capacity"
  search       = "clients"
  max_clients  = 2
  repeats      = 1
  max_probes   = 3
  max_s        = 30
  min_window_s = 0.3
  max_window_s = 0.3
  service_level {
    percentile = 99
    max_ms     = 1000
  }
  read {
    query = query.by_id
  }
}
`
	out, _ := runSpec(t, "sqlite", `["lite_clients"]`, map[string]string{"lite.hcl": spec})
	capRows, err := capacity.ReadCapacity(out)
	if err != nil || len(capRows) != 1 {
		t.Fatalf("capacity.csv: %v %v", capRows, err)
	}
	ev, err := capacity.ReadProbeEvidence(out)
	if err != nil {
		t.Fatal(err)
	}
	probes := map[int]bool{}
	for _, e := range ev {
		if e.Source == "sqlite3_stmt_status" && e.Name == "vm_steps" && strings.Contains(e.Query, "attrs") && e.Value > 0 {
			probes[e.Probe] = true
		}
	}
	if len(probes) != capRows[0].Probes {
		t.Errorf("%d of %d probes have the statement's vm_steps: %+v", len(probes), capRows[0].Probes, ev)
	}
}

// lockedLog is the run's log, written from its goroutines.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// dropPG drops the database the test's run created.
func dropPG(t *testing.T, dsn, database string) {
	t.Helper()
	drv, _ := drivers.Default.Lookup("postgres")
	ctx := context.Background()
	be, err := drv.Open(ctx, drivers.Config{Backend: "postgres", Scale: "xs", Options: map[string]string{"dsn": dsn, "database": database}})
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	defer be.Close()
	if err := be.(drivers.Dropper).Drop(ctx); err != nil {
		t.Errorf("cleanup: dropping %s: %v", database, err)
	}
}
