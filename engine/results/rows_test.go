package results

import (
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/measure"
)

func TestMedian(t *testing.T) {
	base := Row{Scenario: "pull", Backend: "sqlite", Scale: "s", NDatoms: 100, Clients: 1, Op: "read"}
	rep := func(n int, count int64, p50, ops float64, errs int64) Row {
		r := base
		r.Rep, r.Count, r.P50Ms, r.P95Ms, r.P99Ms, r.MaxMs, r.Throughput, r.Errors = n, count, p50, p50*2, p50*3, p50*4, ops, errs
		return r
	}
	tests := []struct {
		name string
		rows []Row
		want Row
	}{
		{"three reps", []Row{rep(1, 30, 3, 10, 1), rep(2, 10, 1, 30, 0), rep(3, 20, 2, 20, 2)},
			Row{Scenario: "pull", Backend: "sqlite", Scale: "s", NDatoms: 100, Clients: 1, Op: "read", Count: 20, P50Ms: 2, P95Ms: 4, P99Ms: 6, MaxMs: 8, Throughput: 20, Errors: 3, Reps: 3}},
		{"two reps: the middle mean", []Row{rep(1, 10, 1, 10, 0), rep(2, 21, 2, 20, 0)},
			Row{Scenario: "pull", Backend: "sqlite", Scale: "s", NDatoms: 100, Clients: 1, Op: "read", Count: 15, P50Ms: 1.5, P95Ms: 3, P99Ms: 4.5, MaxMs: 6, Throughput: 15, Reps: 2}},
		{"one rep", []Row{rep(1, 7, 0.5, 9, 0)},
			Row{Scenario: "pull", Backend: "sqlite", Scale: "s", NDatoms: 100, Clients: 1, Op: "read", Count: 7, P50Ms: 0.5, P95Ms: 1, P99Ms: 1.5, MaxMs: 2, Throughput: 9, Reps: 1}},
		{"none", nil, Row{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Median(tc.rows); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestFromResult(t *testing.T) {
	r := measure.Result{Op: "write", Clients: 4, Count: 1000, Errors: 2, Timeouts: 1,
		P50: 83 * time.Microsecond, P95: 98 * time.Microsecond, P99: 107 * time.Microsecond, Max: 1500 * time.Millisecond,
		Throughput: 11530.25, Elapsed: 10 * time.Second}
	base := Row{Scenario: "write_mixed", Backend: "postgres", Scale: "m", NDatoms: 9850258, Rep: 2}
	got := FromResult(base, r)
	want := Row{Scenario: "write_mixed", Backend: "postgres", Scale: "m", NDatoms: 9850258, Clients: 4, Op: "write", Rep: 2,
		Count: 1000, P50Ms: 0.083, P95Ms: 0.098, P99Ms: 0.107, MaxMs: 1500, Throughput: 11530.25, Errors: 2}
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	c := CeilingRow(Row{Scenario: "as_of", Backend: "sqlite", Scale: "l", NDatoms: 1}, 1, 20*time.Second+time.Millisecond)
	if c.Op != "ceiling" || c.Count != 1 || c.P50Ms != 20001 || c.MaxMs != 20001 || c.Reps != 1 || c.Rep != 1 {
		t.Errorf("ceiling row %+v", c)
	}
}

func ptr[T any](v T) *T { return &v }

func TestLineFormats(t *testing.T) {
	row := Row{Scenario: "point_lookup", Backend: "sqlite", Scale: "s", NDatoms: 984803, Clients: 1, Op: "read", Rep: 2,
		Count: 115297, P50Ms: 0.0831234, P95Ms: 0.098, P99Ms: 0.107, MaxMs: 0.487, Throughput: 11530.21234, Errors: 0, Reps: 3}
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"timing", appendTiming(nil, row), "point_lookup,sqlite,s,984803,1,read,115297,0.083123,0.098,0.107,0.487,11530.212,0,3\n"},
		{"raw", appendRaw(nil, row), "point_lookup,sqlite,s,984803,1,read,2,115297,0.083123,0.098,0.107,0.487,11530.212,0\n"},
		{"quoted field", appendField(nil, `a,"b"`), `"a,""b""",`},
		{"load", appendLoad(nil, LoadRow{Backend: "postgres", Scale: "s", NDatoms: 984803, WallS: 7.5123, DatomsPerS: 131098.21, PostLoadS: ptr(2.41), AnalyzeS: ptr(0.7), VacuumS: ptr(0.4), SizeBytes: ptr[int64](858993459), Jobs: 16}),
			"postgres,s,984803,7.512,131098.2,2.41,0.7,0.4,858993459,16,0\n"},
		{"load not measured, ceiling", appendLoad(nil, LoadRow{Backend: "sqlite", Scale: "m", NDatoms: 3200000, WallS: 900, DatomsPerS: 3555.6, Jobs: 1, Ceiling: true}),
			"sqlite,m,3200000,900,3555.6,,,,,1,1\n"},
		{"check", appendCheck(nil, CheckLine{Status: Fail, Scenario: "aggregate", Backend: "duck db", Scale: "m", Name: "per-state counts", Detail: "open 1\nclosed 2"}),
			"FAIL aggregate duck_db m per-state counts: open 1 closed 2\n"},
		{"size with shared_buffers", appendSize(nil, SizeRow{Scale: "xl", Backend: "postgres", Bytes: 244 << 30, SharedBuffers: 857 << 30}),
			"xl postgres 261993005056 bytes (244.00 GiB); shared_buffers 920196743168 bytes (857.00 GiB); ratio 0.2847\n"},
		{"size larger than shared_buffers", appendSize(nil, SizeRow{Scale: "l", Backend: "postgres", Bytes: 30 << 30, SharedBuffers: 6 << 30}),
			"l postgres 32212254720 bytes (30.00 GiB); shared_buffers 6442450944 bytes (6.00 GiB); ratio 5.0000; larger than shared_buffers\n"},
		{"size alone", appendSize(nil, SizeRow{Scale: "s", Backend: "sqlite", Bytes: 984803}), "s sqlite 984803 bytes (961.72 KiB)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if string(tc.got) != tc.want {
				t.Errorf("got  %q\nwant %q", tc.got, tc.want)
			}
		})
	}
}

// The formats of seed 001's tables.
func TestNumberFormats(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{Thousands(984803), "984,803"},
		{Thousands(9850258), "9,850,258"},
		{Thousands(999), "999"},
		{Thousands(-1234), "-1,234"},
		{Thousands(0), "0"},
		{HumanBytes(204010946), "0.19 GiB"},
		{HumanBytes(50 << 20), "50.00 MiB"},
		{HumanBytes(512), "512 B"},
		{HumanBytes(3 << 40), "3.00 TiB"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
