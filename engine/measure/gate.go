package measure

import (
	"context"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Gate hands the start and the stop of a point to a coordinator outside
// the process, so that the clients of several processes (or machines)
// measure one window: each process warms its clients up, waits at its
// gate, and stops when told.
type Gate interface {
	// Start is called once every client of the process finished its
	// warm-up; the measurement begins when it returns. An error ends the
	// point before it started.
	Start(ctx context.Context) error
	// Tick is called every poll interval (a GateWaker: when it asks)
	// while measuring with the calls finished so far in each stream
	// (failed ones too); it returns true to stop the point.
	Tick(calls []int64) bool
}

// GateWaker is a Gate that says when it next needs a Tick and wakes the
// controller when news comes in between (a worker's stop from its
// coordinator), so that the measuring process sleeps instead of polling:
// 32 workers polling every 2 ms on two cores would spend their time
// waking up. The per-call ceiling is watched as in RunPoint.
type GateWaker interface {
	Gate
	// Wake registers f, which the gate calls (from any goroutine) when
	// it has news for Tick. Called once, when the measurement begins.
	Wake(f func())
	// NextTick is when the gate next needs a Tick if no news comes.
	NextTick() time.Time
}

// SnapshotGate is a Gate whose coordinator applies the adaptive stopping
// rule (Precise) to the histograms of several processes: when it wants
// one, the controller asks the first stream's clients for theirs (each
// answers between two calls, when the sampling has a precision) and hands
// the merge to Snapshot.
type SnapshotGate interface {
	Gate
	// SnapshotWanted says a request came since the last call.
	SnapshotWanted() bool
	// Snapshot receives the first stream's histogram so far.
	Snapshot(h *hdrhistogram.Histogram)
}

// RunPointGated is RunPoint with the barrier and the stop conditions
// handed to g: s.MinDuration, s.MinSamples and s.MaxDuration are the
// gate's to apply. Warm-up, the ceiling and the drain are as in RunPoint.
func RunPointGated(ctx context.Context, s Sampling, streams []Stream, g Gate) ([]Result, error) {
	return runPoint(ctx, s, streams, g)
}

// NewHistogram returns an empty histogram with the geometry every client
// records into (ns, 3 significant digits, up to an hour), so histograms
// from other processes merge without loss.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(histLowest, histHighest, histDigits)
}

// Combine merges the results of one stream measured in several processes
// over the same window: counts add up, the histograms merge exactly and
// the percentiles are read from the merged histogram (never averaged).
// The first error is the first part's that has one. elapsed is the
// window as the coordinator timed it.
func Combine(op string, elapsed time.Duration, parts []Result) Result {
	res := Result{Op: op, Elapsed: elapsed, Hist: NewHistogram()}
	var maxNs int64
	for _, p := range parts {
		res.Clients += p.Clients
		res.Count += p.Count
		res.Errors += p.Errors
		res.Timeouts += p.Timeouts
		res.Late += p.Late
		res.Dropped += p.Dropped
		maxNs = max(maxNs, int64(p.Max))
		if res.FirstError == "" {
			res.FirstError = p.FirstError
		}
		if p.Hist != nil {
			res.Hist.Merge(p.Hist)
		}
	}
	res.summarize(maxNs)
	// A stream of operations: each operation combined alike, by position
	// (every part runs the same operations in the same order).
	// A part without operations (a worker's share lost before it
	// measured) counts in the total only.
	var shape []Result
	for _, p := range parts {
		if len(p.Ops) > 0 {
			shape = p.Ops
			break
		}
	}
	if len(shape) > 0 {
		for i, o := range shape {
			var ops []Result
			for _, p := range parts {
				if i < len(p.Ops) {
					ops = append(ops, p.Ops[i])
				}
			}
			res.Ops = append(res.Ops, Combine(o.Op, elapsed, ops))
		}
	}
	return res
}
