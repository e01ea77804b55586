package evidence_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/spectest"
)

// noAvetBackend is a second SQLite backend of the quickstart without the
// AVET index: the point lookup's plan scans where sqlite's searches.
func noAvetBackend() string {
	sql := filepath.Join(spectest.Root(), "specs", "mentat", "sql")
	return `backend "sqlite_noavet" {
  driver     = "sqlite"
  path       = "${var.data_dir}/noavet-${scale.name}.sqlite"
  settings   = { journal_mode = "WAL", synchronous = "NORMAL" }
  setup      = [file("` + filepath.Join(sql, "schema.sql") + `")]
  after_load = [file("` + filepath.Join(sql, "post_load.sql") + `")]
  analyze    = ["ANALYZE"]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 10000
  }
}
`
}

// Paired variants in one run: the why of compare -variants names each
// backend's own plan, and the work per call that moved with it.
func TestVariantsWhy(t *testing.T) {
	run := runQuickstart(t, map[string]string{"noavet.hcl": noAvetBackend()},
		config.VarArg{Name: "backends", Value: `["sqlite", "sqlite_noavet"]`})
	var key results.Key
	for _, r := range run.Timings {
		if r.Scenario == "point_lookup" && r.Backend == "sqlite" {
			key = r.Key()
		}
	}
	if key.Backend == "" {
		t.Fatalf("no point_lookup row of sqlite in %s", run.Dir)
	}
	rep, err := compare.VariantsOf(run, "sqlite", "sqlite_noavet", compare.Options{Method: compare.MethodThreshold, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("compare -variants:\n%s", rep.String())
	// At a threshold of 0% a point whose plan lost its index moves.
	if len(rep.Why) == 0 {
		t.Fatal("compare -variants gave no why")
	}
	for _, w := range rep.Why {
		all := strings.Join(w.Reasons, "\n")
		if len(w.Reasons) == 0 || !strings.HasPrefix(w.Reasons[0], "plan changed (q1)") || !strings.Contains(w.Reasons[0], "cur_text_avet") {
			t.Errorf("why of %s:\n%s\nwant first the plan that lost cur_text_avet", w.What, all)
		}
		if !strings.Contains(all, "VM steps") {
			t.Errorf("why of %s:\n%s\nlacks the VM steps per call", w.What, all)
		}
	}
	if md := rep.Markdown(); !strings.Contains(md, "plan changed (q1)") {
		t.Errorf("compare -markdown lacks the plan:\n%s", md)
	}
}
