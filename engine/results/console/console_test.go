package console

import (
	"bytes"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Each record the console knows prints its one line; raw reps and sizes
// print nothing (they are only written to files).
func TestPrinterLines(t *testing.T) {
	row := results.Row{Scenario: "lookup", Backend: "sqlite", Scale: "xs", Clients: 4, Op: results.OpRead,
		P50Ms: 0.25, P99Ms: 1.5, Throughput: 1234.5, Errors: 2, Count: 10}
	for _, tc := range []struct {
		name string
		rec  results.Record
		want string
	}{
		{"timing", results.Timing(row),
			"xs/sqlite lookup           read  clients 4   p50    0.250 ms  p99    1.500 ms      1234.5 ops/s  errors 2\n"},
		{"ceiling", results.Timing(results.Row{Scenario: "big", Backend: "sqlite", Scale: "xs", Op: results.OpCeiling, P50Ms: 9}),
			"xs/sqlite big              ceiling: first call took 9.000 ms, scenario skipped\n"},
		{"cold", results.Timing(results.Row{Scenario: "cw", Backend: "sqlite", Scale: "xs", Op: results.ColdOp("q"), P50Ms: 2, Count: 3}),
			"xs/sqlite cw               cold_q         p50    2.000 ms  n 3\n"},
		{"load", results.LoadRow{Backend: "sqlite", Scale: "xs", NDatoms: 12000, WallS: 1.5, DatomsPerS: 8000},
			"xs/sqlite: loaded 12,000 datoms in 1.50s (8,000 datoms/s)\n"},
		{"load ceiling", results.LoadRow{Backend: "sqlite", Scale: "xs", NDatoms: 5000, WallS: 2, Ceiling: true},
			"xs/sqlite: load cap hit after 5,000 datoms in 2.00s\n"},
		{"check", results.CheckLine{Status: "PASS", Scenario: "lookup", Backend: "sqlite", Scale: "xs", Name: "rows match", Detail: "10 rows"},
			"PASS xs/sqlite lookup rows match: 10 rows\n"},
		{"window", results.WindowRow{Row: row, Window: 3, EndS: 30},
			"xs/sqlite lookup           read  window 3       30s  p50    0.250 ms  p99    1.500 ms      1234.5 ops/s  errors 2\n"},
		{"open loop", results.OpenLoopRow{Row: row, Rate: 1000, Late: 1, Dropped: 0},
			"xs/sqlite lookup           read  rate 1000.0/s: 1234.5 ops/s  late 1  dropped 0  errors 2\n"},
		{"raw", results.Raw(row), ""},
		{"size", results.SizeRow{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := New(&b).Emit(tc.rec); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got  %q\nwant %q", b.String(), tc.want)
			}
		})
	}
}
