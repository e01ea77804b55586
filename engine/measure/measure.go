// Package measure is the sampling loop of the engine: it runs the calls of
// one benchmark point (one or more streams of clients) with warm-up, a
// start barrier, minimum time and samples, a maximum time and a per-call
// ceiling, and returns latency percentiles from HDR histograms.
//
// It knows no database and no scenario: a call is a func(ctx) error.
//
// The hot path takes one time.Now per call (the end of a call is the start
// of the next), records into a per-client histogram and touches only the
// client's own atomics; a controller goroutine sleeps until the next
// moment something can happen (the minimum or maximum time, the earliest
// moment a call in flight can reach the ceiling) or a client has news, and
// then decides whether to stop and which calls to cut at the ceiling.
// With adaptive stopping (Sampling.Precision) the controller also asks
// now and then for copies of the first stream's histograms, which the
// clients hand over between two calls; the hot path pays one atomic load.
package measure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// ErrCeiling is the cancellation cause a call sees when it ran longer than
// the probe ceiling (context.Cause of the call's ctx).
var ErrCeiling = errors.New("call exceeded the probe ceiling")

// ErrClientLost, wrapped by a call's error, says the client can make no
// more calls (its connection is gone). It is counted as one error of that
// client, which stops; the point ends early and RunPoint returns its
// results with an error that wraps this one.
var ErrClientLost = errors.New("client lost its connection")

// errStopped is the cancellation cause of calls still running when the
// point stops; their results are discarded.
var errStopped = errors.New("measurement stopped")

// Sampling says how long one point is measured. One RunPoint call measures
// one repetition; the caller runs Reps of them and takes medians.
type Sampling struct {
	Warmup      int           // calls per client discarded before measuring
	MinDuration time.Duration // measure at least this long ...
	MinSamples  int           // ... and at least this many calls of the first stream (failed ones too)
	MaxDuration time.Duration // but never longer than this
	Reps        int           // repetitions of the point (run by the caller)
	Probe       time.Duration // per-call ceiling; 0 disables it

	// Precision turns on adaptive stopping: once MinDuration and
	// MinSamples are reached, the rep stops as soon as the 95% confidence
	// interval of the first stream's p50 has a half-width of at most this
	// fraction of p50 (0.05: within 5%), or at MaxDuration. 0 keeps the
	// seed suite's fixed method: stop at MinDuration and MinSamples.
	Precision float64
	// PrecisionP99 also waits for p99 to be known within this fraction
	// (only with Precision > 0); 0 does not wait for p99.
	PrecisionP99 float64
}

// Bound applies the stopping rule's bounds at elapsed el, with
// firstCalls calls of the first stream so far and minRun the least run
// (MinDuration or more): stop is the reason to stop now, or "". With no
// reason, held says the bounds keep the point going, for at least wait
// more (wait 0: until more calls come); otherwise precision decides, at
// the checks NextCheck spaces. measure's own runs and a coordinator of
// worker processes both stop by it.
func (s Sampling) Bound(el, minRun time.Duration, firstCalls int64) (stop string, wait time.Duration, held bool) {
	switch {
	case el >= s.MaxDuration:
		return StopMax, 0, false
	case el < minRun:
		return "", minRun - el, true
	case firstCalls < int64(s.MinSamples):
		return "", 0, true
	case s.Precision == 0:
		return StopMin, 0, false
	}
	return "", 0, false
}

// NextCheck is when the precision check after one at el is due: 10% more
// elapsed time, at least minCheckGap later, so a rep spends at most about
// a tenth of its time past the moment it became precise.
func NextCheck(el time.Duration) time.Duration { return max(el+el/10, el+minCheckGap) }

// Why a rep stopped (Result.StoppedBy).
const (
	StopMin         = "min"         // fixed method: min duration and samples reached
	StopPrecision   = "precision"   // adaptive: the declared precision was reached
	StopMax         = "max"         // max duration reached first
	StopInterrupted = "interrupted" // the caller's context ended the point
)

// Validate reports settings RunPoint cannot honour.
func (s Sampling) Validate() error {
	switch {
	case s.Warmup < 0:
		return fmt.Errorf("sampling: warmup %d is negative", s.Warmup)
	case s.MinDuration < 0:
		return fmt.Errorf("sampling: min duration %s is negative", s.MinDuration)
	case s.MinSamples < 0:
		return fmt.Errorf("sampling: min samples %d is negative", s.MinSamples)
	case s.MaxDuration <= 0:
		return fmt.Errorf("sampling: max duration %s must be positive", s.MaxDuration)
	case s.Reps < 0:
		return fmt.Errorf("sampling: reps %d is negative", s.Reps)
	case s.Probe < 0:
		return fmt.Errorf("sampling: probe ceiling %s is negative", s.Probe)
	case !(s.Precision >= 0) || math.IsInf(s.Precision, 0):
		return fmt.Errorf("sampling: precision %v must be a fraction >= 0", s.Precision)
	case !(s.PrecisionP99 >= 0) || math.IsInf(s.PrecisionP99, 0):
		return fmt.Errorf("sampling: p99 precision %v must be a fraction >= 0", s.PrecisionP99)
	case s.PrecisionP99 > 0 && s.Precision == 0:
		return errors.New("sampling: p99 precision needs a p50 precision (adaptive stopping) too")
	}
	return nil
}

// Call is one operation of one client. It must return when ctx is done.
type Call func(ctx context.Context) error

// OpCall is one call of a client of a stream of operations: it runs the
// operation it draws and says which (an index into the stream's Ops).
type OpCall func(ctx context.Context) (op int, err error)

// Stream is one kind of operation run by a set of clients.
type Stream struct {
	Op    string // "read", "write", ...
	Calls []Call // one per client; len(Calls) is the client count
	// Ops, when set, names the operations the clients draw from: OpCalls
	// replaces Calls (one per client), and the stream's Result holds one
	// Result per operation in Ops besides the stream's total.
	Ops     []string
	OpCalls []OpCall
}

// clients is the stream's client count.
func (s Stream) clients() int {
	if len(s.Ops) > 0 {
		return len(s.OpCalls)
	}
	return len(s.Calls)
}

// opCall returns client i's call as an OpCall.
func (s Stream) opCall(i int) OpCall {
	if len(s.Ops) > 0 {
		return s.OpCalls[i]
	}
	return plainCall(s.Calls[i])
}

// plainCall is a Call as the only operation of its stream.
func plainCall(c Call) OpCall {
	if c == nil {
		return nil
	}
	return func(ctx context.Context) (int, error) { return 0, c(ctx) }
}

// OpTotal is the op of a stream's total when its operations have rows of
// their own.
const OpTotal = "total"

// Expand lists results with each stream of operations replaced by its
// operations' results followed by its total (Op = OpTotal): the rows a
// point emits, one per operation. Other results are kept as they are.
func Expand(rs []Result) []Result {
	n := 0
	for _, r := range rs {
		n += 1 + len(r.Ops)
	}
	if n == len(rs) {
		return rs
	}
	out := make([]Result, 0, n)
	for _, r := range rs {
		if len(r.Ops) == 0 {
			out = append(out, r)
			continue
		}
		out = append(out, r.Ops...)
		t := r
		t.Op, t.Ops = OpTotal, nil
		out = append(out, t)
	}
	return out
}

// Result is the measurement of one stream over one point.
type Result struct {
	Op      string
	Clients int
	// Count is the number of successful calls (the latency samples);
	// Errors the failed ones, never dropped.
	Count, Errors int64
	FirstError    string // first error message, for logs
	// Timeouts counts calls cut at the Probe ceiling (also in Errors).
	Timeouts           int64
	P50, P95, P99, Max time.Duration
	// Throughput is successful calls per second of measured wall time.
	Throughput float64
	// Elapsed is the measured wall time, the same for every stream.
	Elapsed time.Duration
	// P50RelCI and P99RelCI are the achieved half-widths of the 95%
	// confidence intervals of P50 and P99 relative to them (0.05: known
	// within 5%), from the order statistics of the calls; +Inf when there
	// are too few calls to bracket the quantile. Calls of one run are not
	// independent, so these describe one rep: the variation between reps
	// is the caller's to measure.
	P50RelCI, P99RelCI float64
	// StoppedBy says why the rep stopped: StopMin, StopPrecision, StopMax
	// or StopInterrupted; the same for every stream.
	StoppedBy string
	// Hist holds the successful calls' latencies in ns, for HDR logs and
	// for a worker process to send back so that its coordinator merges
	// exactly; it is filled after the measurement, never on the hot path.
	Hist *hdrhistogram.Histogram
	// Open loop only (RunTimed with a rate): the offered rate, the calls
	// that started more than the late bound after their intended start,
	// and the intended calls never started.
	Rate          float64
	Late, Dropped int64
	// Ops holds a stream of operations' results, one per operation in
	// the stream's order (Op = the operation's name); the Result itself
	// is their total. Empty for a stream of one query or a mix.
	Ops []Result
	// ClientCPU is the CPU time (user and system) the clients' process
	// used during the measured window, runtime, controller and every
	// stream included: the same for every stream of the point, 0 when
	// unknown. With workers it is their sum. Divided by the point's calls
	// it says what the load generator itself spends per call.
	ClientCPU time.Duration
}

// Probe runs one call with the ceiling and reports how long it took and
// whether it exceeded the ceiling (then err is usually the cancellation).
// A ceiling <= 0 means none. One context.WithTimeout is fine here: it is
// one call, not the hot path.
func Probe(ctx context.Context, call Call, ceiling time.Duration) (elapsed time.Duration, exceeded bool, err error) {
	if call == nil {
		return 0, false, errors.New("measure: probe: nil call")
	}
	cctx := ctx
	if ceiling > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeoutCause(ctx, ceiling, ErrCeiling)
		defer cancel()
	}
	start := time.Now()
	err = call(cctx)
	elapsed = time.Since(start)
	exceeded = ceiling > 0 && (elapsed >= ceiling || errors.Is(context.Cause(cctx), ErrCeiling))
	return elapsed, exceeded, err
}
