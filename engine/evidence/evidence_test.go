package evidence

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/sqlite"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 || math.IsNaN(a) && math.IsNaN(b) }

func TestSplit(t *testing.T) {
	nan := math.NaN()
	pg := []drivers.Evidence{
		{Query: "SELECT 1", Name: drivers.EvidenceCalls, Value: 100},
		{Query: "SELECT 1", Name: drivers.EvidenceExecMs, Value: 5},
		{Query: "SELECT 1", Name: drivers.EvidencePlanMs, Value: 2},
		{Query: "SET x", Name: drivers.EvidenceCalls, Value: 2}, // session setup: not a call of the point
		{Query: "SET x", Name: drivers.EvidenceExecMs, Value: 0.5},
	}
	cases := []struct {
		name                                string
		rows                                []results.Row
		ev                                  []drivers.Evidence
		floor                               time.Duration
		obs, exec, plan, rtt, rest, cpuCall float64
		includes                            string
	}{
		// 2 clients at 4000 calls/s: 0.5 ms a call; exec (5+0.5)/100,
		// plan 2/100, floor 0.1.
		{"every part known", []results.Row{{Clients: 2, Count: 1000, Throughput: 4000, Rep: 1}}, pg, 100 * time.Microsecond,
			0.5, 0.055, 0.02, 0.1, 0.5 - 0.055 - 0.02 - 0.1, 0.01, ""},
		{"planning not tracked", []results.Row{{Clients: 1, Count: 1000, Throughput: 2000, Rep: 1}}, pg[:2], 100 * time.Microsecond,
			0.5, 0.05, nan, 0.1, 0.5 - 0.05 - 0.1, 0.01, "planning"},
		{"embedded: no server time", []results.Row{{Clients: 1, Count: 1000, Throughput: 1000, Rep: 1}}, nil, 10 * time.Microsecond,
			1, nan, nan, 0.01, 0.99, 0.01, "server_exec+planning"},
		{"floor unknown", []results.Row{{Clients: 1, Count: 1000, Throughput: 1000, Rep: 1}}, nil, -1,
			1, nan, nan, nan, 1, 0.01, "server_exec+planning+round_trip"},
		// Two ops of one mix: their rates add up; two reps: the mean of
		// theirs (1/1000 and 1/500 s).
		{"two ops, two reps", []results.Row{{Clients: 1, Count: 300, Throughput: 600, Rep: 1, Op: "a"}, {Clients: 1, Count: 200, Throughput: 400, Rep: 1, Op: "b"},
			{Clients: 1, Count: 500, Throughput: 500, Rep: 2, Op: "a"}}, nil, -1,
			1.5, nan, nan, nan, 1.5, 0.01, "server_exec+planning+round_trip"},
		// Open loop: throughput is the offered rate, so the mean per call
		// is not known from it.
		{"open loop", []results.Row{{Clients: 4, Count: 1000, Throughput: 1000, Rep: 1, Op: results.RateOp("read", 1000)}}, pg, 100 * time.Microsecond,
			nan, 0.055, 0.02, 0.1, nan, 0.01, ""},
		{"no calls measured", []results.Row{{Clients: 1, Count: 0, Throughput: 0, Rep: 1}}, nil, -1,
			nan, nan, nan, nan, nan, nan, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Split(tc.rows, tc.ev, tc.floor, 10*time.Millisecond)
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"observed", s.ObservedMs, tc.obs}, {"exec", s.ServerExecMs, tc.exec}, {"planning", s.PlanningMs, tc.plan},
				{"round trip", s.RoundTripMs, tc.rtt}, {"rest", s.RestMs, tc.rest}, {"cpu per call", s.EngineCPUMs, tc.cpuCall}} {
				if !near(c.got, c.want) {
					t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
				}
			}
			if s.RestIncludes != tc.includes {
				t.Errorf("rest includes %q, want %q", s.RestIncludes, tc.includes)
			}
		})
	}
}

// The floor of an in-process database's empty statement is positive and
// far below a millisecond; a session that fails says so.
func TestRoundTripFloor(t *testing.T) {
	ctx := context.Background()
	b, err := sqlite.New().Open(ctx, drivers.Config{Backend: "t", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d, err := RoundTripFloor(ctx, s, 50)
	if err != nil {
		t.Fatal(err)
	}
	if d <= 0 {
		t.Errorf("floor = %v, want > 0", d)
	}
	s.Close()
	if _, err := RoundTripFloor(ctx, s, 5); err == nil {
		t.Error("no error from a closed session")
	}
}
