package runner_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// A load cut by load_max_s reports in loads.csv the datoms the store holds,
// not the dataset's size, and its load log says the cap was hit. A
// commit per transaction, each synced to disk, keeps the load of xs's
// 13,000 issues well past the cap.
func TestCappedLoadReportsTheDatomsLoaded(t *testing.T) {
	// The SQLite backend's own settings (the adapter backend, read first,
	// has the same lines): a journal and a sync per commit.
	spec, data := tinyQuickstart(t,
		".sqlite\"\n  settings = {\n    journal_mode = \"WAL\"\n    synchronous  = \"NORMAL\"",
		".sqlite\"\n  settings = {\n    journal_mode = \"DELETE\"\n    synchronous  = \"FULL\"",
		"batch_rows = 10000 # rows per transaction", "batch_rows = 5",
		"issues = 1500\n", "issues = 13000\n",
		"probe_s = 20\n", "probe_s = 20\n  load_max_s = 0.02\n")
	// A capped load skips the scale's scenarios; the run itself goes on.
	_, dir := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data},
		config.VarArg{Name: "backends", Value: `["sqlite"]`})
	loads := readCSV(t, filepath.Join(dir, "loads.csv"))
	if len(loads) != 2 || loads[1][10] != "1" {
		t.Fatalf("loads.csv = %v, want one ceiling row", loads)
	}
	nd, err := strconv.ParseInt(loads[1][2], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(data, "quickstart-xs.sqlite")
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	held := countStore(t, path)
	if nd != held {
		t.Errorf("loads.csv n_datoms = %d, the store holds %d datoms", nd, held)
	}
	env, _ := os.ReadFile(filepath.Join(dir, "env.txt"))
	total := datasetDatoms(t, string(env))
	t.Logf("loaded %d of %d datoms before the cap", nd, total)
	if nd >= total {
		t.Errorf("n_datoms = %d of %d: the cap did not cut the load", nd, total)
	}
	log, err := os.ReadFile(filepath.Join(dir, "logs", "load-xs-sqlite.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "(load cap hit)") || !strings.Contains(string(log), "job 0: commit at ") {
		t.Errorf("the load log does not show the cut load:\n%.500s", log)
	}
}

// datasetDatoms reads env.txt's dataset.xs datom count.
func datasetDatoms(t *testing.T, env string) int64 {
	t.Helper()
	for _, line := range strings.Split(env, "\n") {
		if v, ok := strings.CutPrefix(line, "dataset.xs: "); ok {
			n, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("env.txt has no dataset.xs line")
	return 0
}

// countStore counts the datoms of a SQLite store through the driver.
func countStore(t *testing.T, path string) int64 {
	t.Helper()
	rows := drivertest.QueryStore(t, "sqlite", drivers.Config{Backend: "sqlite", Scale: "xs", Options: map[string]string{"path": path}},
		"SELECT (SELECT count(*) FROM log_text) + (SELECT count(*) FROM log_int) + (SELECT count(*) FROM log_real)")
	return rows[0][0].(int64)
}
