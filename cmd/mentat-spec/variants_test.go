package main

import (
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// pairedRun writes a run of backends x and y, their reps alternating,
// y twice as slow, while other processes took otherX and otherY percent
// of the CPU.
func pairedRun(t *testing.T, otherX, otherY float64) string {
	t.Helper()
	dir := t.TempDir()
	d, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteEnv([]results.KV{{Key: "spec_sha256", Value: "abc"}, {Key: "backend.x.xs.setting.cache_size", Value: "-2000"},
		{Key: "backend.y.xs.setting.cache_size", Value: "-1024"}}, nil); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := map[string][]results.Row{}
	for n := 1; n <= 5; n++ {
		for _, b := range []string{"x", "y"} {
			ms, other := 1+0.01*float64(n), otherX
			if b == "y" {
				ms, other = 2*ms, otherY
			}
			r := results.Row{Scenario: "reads", Backend: b, Scale: "xs", NDatoms: 10, Clients: 1, Op: "read", Rep: n,
				Count: 1000, P50Ms: ms, P95Ms: ms, P99Ms: 2 * ms, MaxMs: 3 * ms, Throughput: 1000 / ms}
			rows[b] = append(rows[b], r)
			for _, rec := range []results.Record{results.Raw(r), results.NoiseRow{Scenario: "reads", Backend: b, Scale: "xs", Point: 1, Rep: n,
				Start: at, Seconds: 1, Load1: 1, CPUs: 2, BusyPct: other + 10, OwnPct: 10, OtherPct: other}} {
				if err := d.Emit(rec); err != nil {
					t.Fatal(err)
				}
			}
			at = at.Add(time.Second)
		}
	}
	for _, b := range []string{"x", "y"} {
		if err := d.Emit(results.Timing(results.Median(rows[b]))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// compare RUN -variants exits as a compare of two runs does: when the
// variants' noise differs (other processes 74% against 47%) a metric
// that moved cannot be decided (0, or 6 with -fail-undecided), and only
// -force judges it, saying so (issue 44: it forced itself).
func TestCompareVariantsFollowsForce(t *testing.T) {
	run := pairedRun(t, 47, 74)
	for _, tt := range []struct {
		name    string
		args    []string
		code    int
		want    []string
		notWant []string
	}{
		{"noise differs", nil, exitOK, []string{"cannot decide (noise): other processes took 74% of the CPU during NEW, 47% during OLD", "paired: reps alternated"}, []string{"(-force)", "REGRESSION"}},
		{"-fail-undecided", []string{"-fail-undecided"}, exitUndecided, []string{"cannot decide (noise)"}, []string{"(-force)"}},
		{"-force", []string{"-force"}, exitRegression, []string{"REGRESSION", "judged anyway (-force)"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runT(t, append(append([]string{"compare"}, tt.args...), run, "-variants", "x,y")...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("no %q in:\n%s", w, stdout)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(stdout, w) {
					t.Errorf("%q in:\n%s", w, stdout)
				}
			}
		})
	}
}
