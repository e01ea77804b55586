package runner_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

const timedScenarios = `
scenario "soak" {
  kind       = "sustained"
  duration_s = 1.2
  window_s   = 0.5
  clients    = 2
  read {
    mix = [query.q1, query.pull]
  }
}

scenario "arrivals" {
  kind       = "open_loop"
  duration_s = 1
  read {
    query = query.q1
    rate  = [100, 200]
  }
}

sampler "engine" {
  kind    = "process"
  every_s = 0.4
}

sampler "sizes" {
  kind      = "sql"
  every_s   = 0.4
  query     = "SELECT count(*) AS attrs FROM attrs"
}

sampler "absent" {
  kind      = "command"
  every_s   = 0.4
  command   = ["no-such-tool-here"]
  scenarios = ["soak", "arrivals"]
}
`

// TestSustainedAndOpenLoopOnSQLite runs both timed kinds through the
// runner on a real SQLite store: windows, samplers (with a SKIP), open-loop
// rows, and an HDR log for every timing row that reads back to the row's
// percentiles.
func TestSustainedAndOpenLoopOnSQLite(t *testing.T) {
	spec, data := tinyQuickstart(t, `scenario "point_lookup" {`, timedScenarios+"\n"+`scenario "point_lookup" {`)
	_, dir := apply(t, spec, runner.Options{DataDir: data}, config.VarArg{Name: "scenarios", Value: `["point_lookup", "soak", "arrivals"]`})

	windows, err := results.ReadWindows(dir)
	if err != nil {
		t.Fatal(err)
	}
	// 1.2 s in windows of 0.5 s: 0.5, 1.0 and the last 0.2.
	if len(windows) != 3 || windows[2].EndS != 1.2 {
		t.Errorf("windows: %+v, want 3 ending at 1.2 s", windows)
	}
	for _, w := range windows {
		if w.Count == 0 || w.Scenario != "soak" || w.Clients != 2 {
			t.Errorf("window %+v", w)
		}
	}
	for name, minRows := range map[string]int{"engine": 3, "sizes": 3} {
		rows := readCSV(t, filepath.Join(dir, "logs", "sampler-"+name+".csv"))
		if rows[0][0] != "ts" || len(rows)-1 < minRows {
			t.Errorf("sampler %s: %d rows, want >= %d with a ts column: %v", name, len(rows)-1, minRows, rows)
		}
	}
	absent, _ := os.ReadFile(filepath.Join(dir, "logs", "sampler-absent.csv"))
	if !strings.Contains(string(absent), "SKIP: no-such-tool-here is not installed") {
		t.Errorf("absent tool: %s", absent)
	}

	open := readCSV(t, filepath.Join(dir, results.OpenLoopFile))
	if len(open) != 3 || open[1][5] != "100" || open[2][5] != "200" {
		t.Fatalf("openloop.csv: %v", open)
	}
	timings, err := results.ReadTimings(dir)
	if err != nil {
		t.Fatal(err)
	}
	phase := 0
	for _, r := range timings {
		if r.Scenario != "arrivals" {
			continue
		}
		phase++
		rate, _ := strconv.ParseFloat(open[phase][5], 64)
		if r.Op != results.RateOp("read", rate) {
			t.Errorf("phase %d: op %q, want read@%v", phase, r.Op, rate)
		}
		// Throughput of a 1 s phase is the offered rate unless calls
		// were dropped.
		if dropped := open[phase][9]; dropped == "0" && (r.Throughput < rate*0.95 || r.Throughput > rate*1.05) {
			t.Errorf("rate %v: throughput %.1f", rate, r.Throughput)
		}
	}
	if phase != 2 {
		t.Errorf("%d open-loop timing rows, want 2", phase)
	}
	if len(timings) < 4 {
		t.Fatalf("%d timing rows", len(timings))
	}
	for _, r := range timings {
		hs := readHlog(t, filepath.Join(dir, results.HdrDir, results.HlogName(r)))
		merged := hdrhistogram.New(1, int64(time.Hour), 3)
		for _, h := range hs {
			merged.Merge(h)
		}
		if r.Scenario == "soak" && len(hs) != 3 {
			t.Errorf("soak's log has %d intervals, want one per window", len(hs))
		}
		if r.Reps > 1 {
			continue // the row is a median of reps; the log holds them all
		}
		if merged.TotalCount() != r.Count {
			t.Errorf("%s: log holds %d values, row %d", r.Key(), merged.TotalCount(), r.Count)
		}
		for p, want := range map[float64]float64{50: r.P50Ms, 99: r.P99Ms} {
			got := float64(min(merged.ValueAtPercentile(p), merged.Max())) / 1e6
			if diff := got - want; diff > want*0.002 || diff < -want*0.002 {
				t.Errorf("%s p%v: log %.6f ms, row %.6f ms", r.Key(), p, got, want)
			}
		}
	}
}

// TestPhaseSustained: a second invocation with -phase sustained runs only
// the sustained scenario on the store the first one loaded, appending to
// the same results directory.
func TestPhaseSustained(t *testing.T) {
	spec, data := tinyQuickstart(t, `scenario "point_lookup" {`, timedScenarios+"\n"+`scenario "point_lookup" {`)
	vars := config.VarArg{Name: "scenarios", Value: `["point_lookup", "soak"]`}
	_, dir := apply(t, spec, runner.Options{DataDir: data}, vars)
	before, _ := results.ReadTimings(dir)
	o, _ := apply(t, spec, runner.Options{DataDir: data, ResultsDir: dir, Phase: runner.PhaseSustained, Kinds: []string{"sustained"}}, vars)
	if o.Failed() {
		t.Fatalf("failures: %v", o.Failures)
	}
	after, _ := results.ReadTimings(dir)
	added := after[len(before):]
	if len(added) != 1 || added[0].Scenario != "soak" {
		t.Errorf("phase sustained added %+v, want one soak row", added)
	}
	loads, _ := results.ReadLoads(dir)
	if len(loads) != 1 {
		t.Errorf("%d loads: phase sustained must not load", len(loads))
	}
}

// TestSustainedSamplersOnPostgres: the SQL samplers read the server's
// statistics on their own sessions, a missing view gives a SKIP row with
// the server's reason, and pid_query follows the server's processes.
func TestSustainedSamplersOnPostgres(t *testing.T) {
	dsn := pgDSN(t)
	db := uniqueName(t, "mentat_rt_")
	samplers := `
sampler "stat_database" {
  kind     = "sql"
  every_s  = 0.4
  backends = ["postgres"]
  query    = "SELECT xact_commit, blks_hit FROM pg_stat_database WHERE datname = current_database()"
}

sampler "no_view" {
  kind     = "sql"
  every_s  = 0.4
  query    = "SELECT * FROM no_such_stat_view"
}

sampler "server" {
  kind      = "process"
  every_s   = 0.4
  backends  = ["postgres"]
  pid_query = "SELECT pg_backend_pid()"
}
`
	spec, data := tinyQuickstart(t, `database   = "mentat_quickstart_${scale.name}"`, `database   = "`+db+`"`,
		`scenario "point_lookup" {`, timedScenarios+samplers+"\n"+`scenario "point_lookup" {`)
	t.Cleanup(func() { dropPG(t, dsn, db) })
	o, dir := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data},
		config.VarArg{Name: "backends", Value: `["postgres"]`}, config.VarArg{Name: "pg_dsn", Value: dsn},
		config.VarArg{Name: "scenarios", Value: `["soak"]`})
	if o.Failed() {
		t.Fatalf("failures: %v", o.Failures)
	}
	stat := readCSV(t, filepath.Join(dir, "logs", "sampler-stat_database.csv"))
	// At least 2 samples (a loaded machine may fire fewer than the 3 the
	// schedule allows in 1.2 s).
	if len(stat) < 3 || strings.Join(stat[0], ",") != "ts,elapsed_s,xact_commit,blks_hit" {
		t.Errorf("stat_database: %v", stat)
	}
	first, _ := strconv.Atoi(stat[1][2])
	last, _ := strconv.Atoi(stat[len(stat)-1][2])
	if last <= first {
		t.Errorf("xact_commit did not grow during the run: %d -> %d", first, last)
	}
	noView, _ := os.ReadFile(filepath.Join(dir, "logs", "sampler-no_view.csv"))
	if !strings.Contains(string(noView), "SKIP: ") || !strings.Contains(string(noView), "no_such_stat_view") {
		t.Errorf("no_view: %s", noView)
	}
	server := readCSV(t, filepath.Join(dir, "logs", "sampler-server.csv"))
	if len(server) < 5 || server[2][2] != "server" {
		t.Fatalf("server: %v", server)
	}
	if pids, _ := strconv.Atoi(server[2][3]); pids < 3 {
		t.Errorf("server: %s processes, want the postmaster and its children", server[2][3])
	}
}

// readHlog is ReadHlog failing the test on an error.
func readHlog(t *testing.T, path string) []*hdrhistogram.Histogram {
	t.Helper()
	hs, err := results.ReadHlog(path)
	if err != nil {
		t.Fatal(err)
	}
	return hs
}

// The timed kinds repeat their duration reps times: a raw row per rep,
// one timing row and one openloop.csv row per phase, whose late and
// dropped calls are all the reps'.
func TestTimedKindsHonourReps(t *testing.T) {
	scenarios := `
scenario "soak" {
  kind       = "sustained"
  duration_s = 0.4
  window_s   = 0.2
  reps       = 2
  read {
    query = query.q1
  }
}

scenario "arrivals" {
  kind       = "open_loop"
  duration_s = 0.4
  reps       = 3
  read {
    query = query.q1
    rate  = 100
  }
}
`
	spec, data := tinyQuickstart(t, `scenario "point_lookup" {`, scenarios+"\n"+`scenario "point_lookup" {`)
	o, dir := apply(t, spec, runner.Options{DataDir: data}, config.VarArg{Name: "scenarios", Value: `["soak", "arrivals"]`})
	if o.Failed() {
		t.Fatalf("failed: %v", o.Failures)
	}
	reps := map[string][]string{}
	for _, r := range readCSV(t, filepath.Join(dir, "raw.csv"))[1:] {
		reps[r[0]] = append(reps[r[0]], r[6])
	}
	if got := strings.Join(reps["soak"], ","); got != "1,2" {
		t.Errorf("soak's raw reps %s, want 1,2", got)
	}
	if got := strings.Join(reps["arrivals"], ","); got != "1,2,3" {
		t.Errorf("arrivals' raw reps %s, want 1,2,3", got)
	}
	timings, err := results.ReadTimings(dir)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, r := range timings {
		per[r.Scenario]++
	}
	if per["soak"] != 1 || per["arrivals"] != 1 {
		t.Errorf("timing rows per scenario %v, want one each", per)
	}
	open := readCSV(t, filepath.Join(dir, results.OpenLoopFile))
	if len(open) != 2 {
		t.Fatalf("openloop.csv: %v, want one row for the phase", open)
	}
	// The row is the median rep's: at most the 40 calls one rep of 0.4 s
	// at 100/s starts, not the three reps' sum.
	if n, _ := strconv.Atoi(open[1][6]); n < 1 || n > 40 {
		t.Errorf("openloop.csv count %s, want one rep's calls (at most 40): %v", open[1][6], open[1])
	}
}
