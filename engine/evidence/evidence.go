// Package evidence turns what a database's instruments said about a point
// into where the point's latency went: server execution, planning, the
// connection's round-trip floor and the rest (queueing, the client). It
// knows no database: drivers report drivers.Evidence, the engine's own
// measurements (the round-trip floor, the process's CPU) come from here.
// It also reads the evidence back into a loaded run (load.go), shows the
// split in the reports (section.go) and tells compare why a verdict
// moved (why.go, plandiff.go).
package evidence

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/helpercpu"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// EmptyStatement is what the round-trip floor times: a statement with
// nothing to execute, so its time is the connection's and the driver's.
const EmptyStatement = ";"

// FloorCalls is how many empty statements the floor's median is of,
// after as many untimed ones to warm the connection.
const FloorCalls = 200

// RoundTripFloor is the median time of an empty statement on s: the least
// any call on such a connection takes.
func RoundTripFloor(ctx context.Context, s drivers.Session, n int) (time.Duration, error) {
	if n < 1 {
		n = 1
	}
	for i := 0; i < n/4+1; i++ {
		if err := s.Exec(ctx, EmptyStatement); err != nil {
			return 0, fmt.Errorf("round-trip floor: an empty statement: %w", err)
		}
	}
	d := make([]time.Duration, n)
	for i := range d {
		t := time.Now()
		if err := s.Exec(ctx, EmptyStatement); err != nil {
			return 0, fmt.Errorf("round-trip floor: an empty statement: %w", err)
		}
		d[i] = time.Since(t)
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[n/2], nil
}

// CPU is this process's user and system CPU time so far, with the
// processes a driver runs on the client's behalf (an adapter per
// session, drivers/helpercpu), as an embedded database's work is in it.
func CPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return helpercpu.Total()
	}
	return time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) + helpercpu.Total()
}

// Split is where the mean latency of a point's calls went. rows are the
// point's (or rep's) raw rows; ev what the database reported over it;
// floor the connection's round-trip floor (negative: unknown); cpu the
// process's CPU over the stretch. Parts the database does not expose are
// results.Unknown, and so then is the rest.
func Split(rows []results.Row, ev []drivers.Evidence, floor time.Duration, cpu time.Duration) results.SplitRow {
	s := results.SplitRow{ObservedMs: math.NaN(), ServerExecMs: math.NaN(), PlanningMs: math.NaN(),
		RoundTripMs: math.NaN(), RestMs: math.NaN(), EngineCPUMs: math.NaN()}
	thr := map[int]float64{} // calls per second of all ops, per rep
	open := false
	for _, r := range rows {
		// An op at an offered rate (open loop, a capacity probe): its
		// calls per second are the rate's, not the clients' pace.
		open = open || strings.Contains(r.Op, "@")
		s.Calls += r.Count
		thr[r.Rep] += r.Throughput
		if r.Clients > s.Clients {
			s.Clients = r.Clients
		}
	}
	// Closed loop: each client has one call in flight, so the mean time
	// per call is clients over the calls per second of all ops; over
	// several reps, the mean of theirs.
	var sum float64
	for _, t := range thr {
		if t <= 0 {
			sum = math.NaN()
		}
		sum += float64(s.Clients) / t
	}
	if len(thr) > 0 && s.Clients > 0 && !math.IsNaN(sum) && !open {
		s.ObservedMs = 1000 * sum / float64(len(thr))
	}
	if s.Calls > 0 && cpu > 0 {
		s.EngineCPUMs = float64(cpu) / float64(time.Millisecond) / float64(s.Calls)
	}
	if floor >= 0 {
		s.RoundTripMs = float64(floor) / float64(time.Millisecond)
	}
	// Per call of the point's most-called statement (warmup calls
	// included, as the server counts them): a call that runs several
	// statements (BEGIN, the write, COMMIT) is charged all of them.
	var calls, exec, plan float64
	var hasExec, hasPlan bool
	for _, e := range ev {
		switch e.Name {
		case drivers.EvidenceCalls:
			calls = math.Max(calls, e.Value)
		case drivers.EvidenceExecMs:
			exec += e.Value
			hasExec = true
		case drivers.EvidencePlanMs:
			plan += e.Value
			hasPlan = true
		}
	}
	if calls > 0 {
		if hasExec {
			s.ServerExecMs = exec / calls
		}
		if hasPlan {
			s.PlanningMs = plan / calls
		}
	}
	// The rest is what the known parts leave; a part that is unknown is
	// in it, and the row says which.
	if !math.IsNaN(s.ObservedMs) {
		s.RestMs = s.ObservedMs
		var in []string
		for _, p := range []struct {
			name string
			v    float64
		}{{"server_exec", s.ServerExecMs}, {"planning", s.PlanningMs}, {"round_trip", s.RoundTripMs}} {
			if math.IsNaN(p.v) {
				in = append(in, p.name)
				continue
			}
			s.RestMs -= p.v
		}
		s.RestIncludes = strings.Join(in, "+")
	}
	return s
}
