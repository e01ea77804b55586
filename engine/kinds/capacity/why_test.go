package capacity_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// buildPlan is this file's one call of plan.Build.
func buildPlan(t *testing.T, spec *config.Spec) *plan.Plan {
	t.Helper()
	p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 2)
	if diags.HasErrors() {
		t.Fatalf("plan: %s", diags.Error())
	}
	return p
}

// hotRowCapacity searches the rate two connections sustain when every
// call updates one row and holds its lock 20 ms: past about 50 calls a
// second they queue on the lock.
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
`

// A capacity's breaking point on PostgreSQL: summary.md's section says
// what moved between the last probe within the capacity and the first
// past it, and the lock waits during the one past it against the one
// within it, from each probe's own evidence; the run's log says it too.
func TestCapacityBreakingPointWhy(t *testing.T) {
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is unset")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	dir := t.TempDir()
	db := fmt.Sprintf("mentat_whycap_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	files := map[string]string{"hot.hcl": hotRowCapacity, "pg_override.hcl": "backend \"postgres\" {\n  database = \"" + db + "\"\n}\n"}
	paths := []string{filepath.Join(root, "examples", "quickstart.hcl")}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	vars := []config.VarArg{{Name: "scenarios", Value: `["hot_capacity"]`}, {Name: "scales", Value: `["xs"]`}, {Name: "backends", Value: `["postgres"]`},
		{Name: "pg_dsn", Value: dsn}, {Name: "data_dir", Value: filepath.Join(dir, "data")}}
	spec, diags := config.Load(paths, config.Options{Vars: vars})
	if !diags.HasErrors() {
		diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
	}
	if diags.HasErrors() {
		t.Fatalf("spec: %s", diags.Error())
	}
	t.Cleanup(func() { dropPG(t, dsn, db) })
	out := filepath.Join(dir, "results")
	log := &lockedLog{}
	o, err := runner.Run(context.Background(), buildPlan(t, spec), runner.Options{ResultsDir: out, Registry: drivers.Default, Workers: 2, Log: log})
	if err != nil || o.Failed() {
		t.Fatalf("run: %v %v", err, o.Failures)
	}
	// The run's text says it where the search ends.
	if text := log.String(); !strings.Contains(text, "capacity broke between ") {
		t.Errorf("the run's log lacks where the search broke:\n%s", text)
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(summary)
	i := strings.Index(s, "Why each search broke")
	if i < 0 {
		t.Fatalf("summary.md lacks why the search broke:\n%s", s)
	}
	why := s[i:]
	t.Logf("%s", why)
	// Which bound broke first, and by how much latency and lateness
	// moved, is the machine's; that one did, and what, is said first.
	if !strings.Contains(why, "| 1 | broke ") {
		t.Errorf("the why lacks the bound broken first")
	}
	// The lock waits come from the two probes' own evidence, not the
	// whole search's.
	locks := false
	for _, l := range strings.Split(why, "\n") {
		if strings.Contains(l, "over the whole search") {
			t.Errorf("the why falls back on the whole search's evidence: %s", l)
		}
		locks = locks || strings.Contains(l, "wait events") && strings.Contains(l, "Lock:")
	}
	if !locks {
		t.Errorf("the why lacks the lock waits of the probe past the capacity")
	}
	if text := log.String(); !strings.Contains(text, "Lock:") {
		t.Errorf("the run's log lacks the lock waits where the search broke:\n%s", text)
	}
	ev, err := os.ReadFile(filepath.Join(out, "logs", "capacity-evidence.csv"))
	if err != nil || !strings.Contains(string(ev), ",split,,server_exec_ms,") {
		t.Errorf("logs/capacity-evidence.csv lacks the probes' splits (%v):\n%s", err, ev)
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
