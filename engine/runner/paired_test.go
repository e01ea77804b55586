package runner_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// smallCache is a second SQLite backend of the quickstart: the same store
// with a page cache of 1 MiB, the A/B of a setting.
const smallCache = `backend "sqlite_small" {
  driver = "sqlite"
  path   = "${var.data_dir}/${local.store}-small-${scale.name}.sqlite"
  settings = {
    journal_mode = "WAL"
    synchronous  = "NORMAL"
    cache_size   = -1024
  }
  setup      = [file("SQL/schema.sql")]
  after_load = concat([file("SQL/post_load.sql")], var.avet ? [file("SQL/avet.sql")] : [])
  analyze    = ["ANALYZE"]
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
  }
}

backend "duckdb" {`

// With the sampling order "paired" the backends of a scale are measured
// side by side: rep 1 of a point on each backend, then the next point,
// then rep 2; and compare -variants judges one against the other from
// that one run, listing the setting they differ in.
func TestPairedOrderAlternatesBackends(t *testing.T) {
	sql := filepath.ToSlash(filepath.Join(repoRoot(t), "specs", "mentat", "sql"))
	spec, data := tinyQuickstart(t, "  reps    = 2\n", "  reps    = 2\n  order   = \"paired\"\n", `backend "duckdb" {`, strings.ReplaceAll(smallCache, "SQL", sql))
	o, dir := apply(t, spec, runner.Options{DataDir: data},
		config.VarArg{Name: "backends", Value: `["sqlite", "sqlite_small"]`},
		config.VarArg{Name: "scenarios", Value: `["point_lookup", "aggregate"]`})
	if o.Failed() {
		t.Fatalf("failed: %v %+v", o.Failures, o.Checks)
	}
	var order []string
	for _, r := range readCSV(t, filepath.Join(dir, "raw.csv"))[1:] {
		order = append(order, r[0]+" "+r[1]+" "+r[6])
	}
	want := []string{
		"point_lookup sqlite 1", "point_lookup sqlite_small 1", "aggregate sqlite 1", "aggregate sqlite_small 1",
		"point_lookup sqlite 2", "point_lookup sqlite_small 2", "aggregate sqlite 2", "aggregate sqlite_small 2",
	}
	if strings.Join(order, "\n") != strings.Join(want, "\n") {
		t.Errorf("raw.csv in the order\n%s\nwant the backends side by side\n%s", strings.Join(order, "\n"), strings.Join(want, "\n"))
	}
	if o.Checks.Pass == 0 {
		t.Errorf("no check passed on the paired backends: %+v", o.Checks)
	}
	v, err := compare.Variants(dir, "sqlite", "sqlite_small", compare.Options{ThresholdPct: 10})
	if err != nil {
		t.Fatal(err)
	}
	out := v.String()
	if v.Compared != 2 || v.Refused || len(v.Verdicts) != 6 {
		t.Errorf("variants: %d compared, refused %v, %d verdicts:\n%s", v.Compared, v.Refused, len(v.Verdicts), out)
	}
	for _, w := range []string{"the variants differ in", "cache_size", "both variants are of one run"} {
		if !strings.Contains(out, w) {
			t.Errorf("the variants' verdict lacks %q:\n%s", w, out)
		}
	}
	if _, err := compare.Variants(dir, "sqlite", "postgres", compare.Options{}); err == nil || !strings.Contains(err.Error(), "no backend \"postgres\"") {
		t.Errorf("a backend the run did not measure: %v", err)
	}
}
