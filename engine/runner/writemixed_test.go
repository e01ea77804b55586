package runner_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// writeBackends are the backends write_mixed runs on here: the embedded
// ones always, PostgreSQL when MENTAT_SPEC_PG_DSN is set.
func writeBackends() []string {
	bs := []string{"sqlite", "duckdb"}
	if os.Getenv("MENTAT_SPEC_PG_DSN") != "" {
		bs = append(bs, "postgres")
	}
	return bs
}

// writeQuickstart is the tiny quickstart with its own PostgreSQL database
// name and the given edits.
func writeQuickstart(t testing.TB, edits ...string) (string, string) {
	t.Helper()
	return quickstartText(t, true, append([]string{`database   = "mentat_quickstart_${scale.name}"`, `database   = "mentat_writetest_${scale.name}"`}, edits...)...)
}

func writeVars(data, backend string) []config.VarArg {
	return []config.VarArg{
		{Name: "data_dir", Value: data},
		{Name: "backends", Value: `["` + backend + `"]`},
		{Name: "scenarios", Value: `["write_mixed"]`},
		{Name: "mixed_s", Value: "1"},
	}
}

// checkStatus maps each check of checks.txt to its status and detail.
func checkStatus(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range readLines(t, filepath.Join(dir, results.ChecksFile)) {
		f := strings.Fields(l)
		if len(f) < 5 || f[1] != "write_mixed" {
			continue
		}
		out[strings.TrimSuffix(f[4], ":")] = l
	}
	return out
}

// apply examples/quickstart.hcl -var 'scenarios=["write_mixed"]' on each
// backend: write and read rows, and a PASS for every check after the
// writes and for the reads checked during them.
func TestWriteMixedPassesOnEachBackend(t *testing.T) {
	for _, be := range writeBackends() {
		t.Run(be, func(t *testing.T) {
			spec, data := writeQuickstart(t)
			o, dir := apply(t, spec, runner.Options{}, writeVars(data, be)...)
			if o.Failed() {
				t.Fatalf("failed: %v %+v", o.Failures, o.Checks)
			}
			ops := map[string]bool{}
			for _, r := range readCSV(t, filepath.Join(dir, "timings.csv"))[1:] {
				if r[0] == "write_mixed" {
					ops[r[5]] = true
				}
			}
			if !ops[results.OpWrite] || !ops[results.OpRead] {
				t.Errorf("timings.csv has write_mixed ops %v, want write and read", ops)
			}
			st := checkStatus(t, dir)
			for _, name := range []string{"point_lookup", "aggregate", "assigned", "as_of", "input_bindings", "concurrent_reads"} {
				if !strings.HasPrefix(st[name], "PASS") {
					t.Errorf("check %s: %q, want PASS", name, st[name])
				}
			}
			if !strings.Contains(st["concurrent_reads"], "each a legal state") {
				t.Errorf("concurrent_reads checked nothing: %q", st["concurrent_reads"])
			}
			contention := readLines(t, filepath.Join(dir, "logs", "contention.log"))
			if len(contention) != 2 || !strings.Contains(contention[0], "op=write") || !strings.Contains(contention[0], "busy=") {
				t.Errorf("contention.log: %q", contention)
			}
		})
	}
}

// write_mixed repeats mixed_s reps times as every point repeats: a raw
// row per rep for the writer and the readers, the writes of all reps in
// the truth (every check after them passes), and the timing row the
// merge of the reps.
func TestWriteMixedHonoursReps(t *testing.T) {
	spec, data := writeQuickstart(t)
	vars := append(writeVars(data, "sqlite"), config.VarArg{Name: "reps", Value: "3"}, config.VarArg{Name: "mixed_s", Value: "0.3"})
	o, dir := apply(t, spec, runner.Options{}, vars...)
	if o.Failed() {
		t.Fatalf("failed: %v %+v", o.Failures, o.Checks)
	}
	reps := map[string][]string{}
	for _, r := range readCSV(t, filepath.Join(dir, "raw.csv"))[1:] {
		if r[0] == "write_mixed" {
			reps[r[5]] = append(reps[r[5]], r[6])
		}
	}
	for _, op := range []string{results.OpWrite, results.OpRead} {
		if !slices.Equal(reps[op], []string{"1", "2", "3"}) {
			t.Errorf("raw.csv %s reps %v, want 1, 2, 3", op, reps[op])
		}
	}
	for name, l := range checkStatus(t, dir) {
		if !strings.HasPrefix(l, "PASS") {
			t.Errorf("check %s after three reps of writes: %q", name, l)
		}
	}
}

// A write that skips the current-state update leaves cur_text behind the
// log: the answers after the writes no longer match the truth the
// committed writes lead to, and apply fails naming the checks that read
// the current state.
func TestWriteMixedCatchesAWriteThatSkipsTheCurrentState(t *testing.T) {
	wrong := filepath.ToSlash(filepath.Join(repoRoot(t), "engine", "runner", "testdata", "writes", "write_state_no_cur.sql"))
	for _, be := range writeBackends() {
		t.Run(be, func(t *testing.T) {
			spec, data := writeQuickstart(t, `file("${local.sql}/sql/write_state.sql")`, `file("`+wrong+`")`)
			o, dir := apply(t, spec, runner.Options{}, writeVars(data, be)...)
			if !o.Failed() || o.Checks.Fail == 0 {
				t.Fatalf("a wrong write passed: %+v", o.Checks)
			}
			st := checkStatus(t, dir)
			// Which of them sees it depends on the writes that committed:
			// the count of issues by state misses it when their changes
			// cancel out (one issue open to closed, another closed to
			// open), as a handful of writes in a second on a loaded machine
			// can; the assigned issues' states or a read of the issue
			// written last then do.
			readState := map[string]bool{"aggregate": true, "assigned": true, "concurrent_reads": true}
			var caught []string
			for name, line := range st {
				if !strings.HasPrefix(line, "FAIL") {
					continue
				}
				if !readState[name] {
					t.Errorf("check %s, which reads no written state, failed: %q", name, line)
				}
				caught = append(caught, name)
			}
			if len(caught) == 0 {
				t.Errorf("no check after the writes failed: %v", st)
			}
			slices.Sort(caught)
			t.Logf("caught by %v", caught)
			if !strings.HasPrefix(st["point_lookup"], "PASS") {
				t.Errorf("point_lookup, which no write touches: %q", st["point_lookup"])
			}
		})
	}
}

// A write split in two transactions (the log first, the current state
// later) exposes a state that never existed to readers in between: the
// concurrent-read check reports it with the write it contradicts.
func TestWriteMixedCatchesASplitWrite(t *testing.T) {
	split := filepath.ToSlash(filepath.Join(repoRoot(t), "engine", "runner", "testdata", "writes", "write_state_split.sql"))
	caught := 0
	for _, be := range writeBackends() {
		t.Run(be, func(t *testing.T) {
			spec, data := writeQuickstart(t, `file("${local.sql}/sql/write_state.sql")`, `file("`+split+`")`,
				"fraction = 0.1", "fraction = 1")
			o, dir := apply(t, spec, runner.Options{}, append(writeVars(data, be), config.VarArg{Name: "mixed_readers", Value: "3"})...)
			st := checkStatus(t, dir)
			line := st["concurrent_reads"]
			t.Logf("%s", line)
			if strings.HasPrefix(line, "FAIL") {
				caught++
				if !o.Failed() || !strings.Contains(line, "never existed") || !strings.Contains(line, "contradicts write") {
					t.Errorf("the FAIL does not name the write: %q", line)
				}
			}
			// Once both halves committed the state is right again.
			if !strings.HasPrefix(st["aggregate"], "PASS") {
				t.Errorf("aggregate: %q", st["aggregate"])
			}
		})
	}
	if caught == 0 {
		t.Error("no backend reported the split write's intermediate state")
	}
}

// After write_mixed the store is marked written: the next run of the
// quickstart reloads it before measuring, and its checks pass against
// the generator's truth.
func TestRunAfterWriteMixedReloads(t *testing.T) {
	spec, data := writeQuickstart(t)
	o, _ := apply(t, spec, runner.Options{}, writeVars(data, "sqlite")...)
	if o.Failed() {
		t.Fatalf("write_mixed: %v %+v", o.Failures, o.Checks)
	}
	// -phase bench refuses it with the reason.
	o, _ = apply(t, spec, runner.Options{Phase: runner.PhaseBench}, config.VarArg{Name: "data_dir", Value: data},
		config.VarArg{Name: "scenarios", Value: `["aggregate"]`})
	if !o.Failed() || len(o.Failures) == 0 || !strings.Contains(o.Failures[0], "written to by scenario write_mixed") {
		t.Fatalf("-phase bench measured the written store: %v", o.Failures)
	}
	// A normal run reloads it, and its checks pass.
	var log bytes.Buffer
	o, _ = apply(t, spec, runner.Options{Log: &log}, config.VarArg{Name: "data_dir", Value: data},
		config.VarArg{Name: "scenarios", Value: `["aggregate", "since"]`})
	if o.Failed() || o.Checks.Pass != 2 {
		t.Fatalf("run after the writes: %v %+v", o.Failures, o.Checks)
	}
	if !strings.Contains(log.String(), "written to by write_mixed") || strings.Contains(log.String(), "reusing the store") {
		t.Errorf("the written store was not reloaded:\n%s", log.String())
	}
}

// A check that can no longer be known after the writes (here: who is
// assigned what, when the writes reassign issues) is refused when the
// spec is planned, naming the check and the truth.
func TestWriteMixedRefusesACheckTheWritesMakeUnknowable(t *testing.T) {
	spec, data := writeQuickstart(t,
		`attr   = "issue/state"
    value  = weighted({ open = 4, closed = 4, in_progress = 2 })`,
		`attr   = "issue/assignee"
    value  = zipf("user", 1.1)`)
	s, diags := config.Load([]string{spec}, config.Options{Vars: writeVars(data, "sqlite")})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	_, diags = planbuild.Build(context.Background(), s, plan.Drivers(drivers.Default), 2)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), `Check "assigned" of scenario "write_mixed" reads truth.assigned`) {
		t.Fatalf("got %v", diags)
	}
}
