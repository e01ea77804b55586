package measure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mentat-spec/mentat-spec/engine/stats"
)

const (
	// pollInterval is how often the controller looks when it has nothing
	// better to wait for: a gate's ticks, the minimum calls not reached
	// after the minimum time, snapshots asked for and not yet answered.
	// Otherwise it sleeps until the next moment something can happen (see
	// control), so a point of seconds wakes it a handful of times.
	pollInterval = 2 * time.Millisecond

	// Nanosecond histograms, 3 significant digits, up to an hour (270 KB
	// per client); longer calls are recorded as an hour, Max stays exact.
	histLowest  = 1
	histHighest = int64(time.Hour)
	histDigits  = 3

	// minCheckGap is the least time between two precision checks
	// (NextCheck).
	minCheckGap = 20 * time.Millisecond

	// cur values besides a start time.
	idle    = 0
	claimed = -1 // the watchdog cut this call
)

// minStopGrace is how long calls in flight at the stop may run on (at
// least; the probe ceiling if longer) before they are cancelled, and then
// how long they get to return. A variable so tests stay short.
var minStopGrace = 5 * time.Second

// client is one goroutine's state. The atomics sit on their own cache
// line so that neighbours and the controller do not slow the hot path.
type client struct {
	_     [64]byte
	cur   atomic.Int64 // start (ns since origin, > 0) of the call in flight, idle or claimed
	calls atomic.Int64 // measured calls finished, successful or not
	_     [48]byte

	call OpCall
	ctx  context.Context // only the client goroutine reads and replaces it
	live *LiveCounts     // the live view's counters (nil: none)

	mu     sync.Mutex // orders the watchdog's cancel with renew; off the hot path
	cancel context.CancelCauseFunc

	// Owned by the client goroutine; read after it exits. One entry per
	// operation of the stream (one for a stream without operations).
	ops      []opStats
	panicked string

	// Adaptive stopping: clients of the first stream hand a copy of their
	// histogram to the controller when it asks (run.snapReq moves on).
	wantSnap bool
	snapSeen int64                    // last request answered; client-owned
	snapOut  atomic.Pointer[snapshot] // the answer, read by the controller
}

// opStats is what one client measured of one operation.
type opStats struct {
	hist              *hdrhistogram.Histogram
	ok, errs, timeout int64
	max               int64
	firstErr          string
	firstErrAt        int64
}

// newOpStats returns a client's counters for n operations (at least one).
func newOpStats(n int) []opStats {
	out := make([]opStats, max(n, 1))
	for i := range out {
		out[i].hist = hdrhistogram.New(histLowest, histHighest, histDigits)
	}
	return out
}

// histCopy is the client's histogram over all its operations, exported.
func (c *client) histCopy() *hdrhistogram.Snapshot {
	if len(c.ops) == 1 {
		return c.ops[0].hist.Export()
	}
	h := hdrhistogram.New(histLowest, histHighest, histDigits)
	for i := range c.ops {
		h.Merge(c.ops[i].hist)
	}
	return h.Export()
}

// snapshot is a client's histogram at the controller's request req.
type snapshot struct {
	req  int64
	hist *hdrhistogram.Snapshot
}

// run is the state shared by the clients of one point.
type run struct {
	origin time.Time
	probe  int64
	stopAt atomic.Int64 // ns since origin when the point stopped; 0 while running
	ready  atomic.Int64 // clients done with warm-up
	total  int64        // clients in all streams
	start  chan struct{}
	// news wakes the controller when the last client is ready or a
	// client is lost (buffered 1: a pending wake-up is enough).
	news chan struct{}
	ctx  context.Context       // cancelled with errStopped when the point stops
	lost atomic.Pointer[error] // the first ErrClientLost error: ends the point
	gate Gate                  // nil: the point starts and stops by itself
	// gateErr is why the gate ended the point before it started.
	gateErr error

	snapReq atomic.Int64 // bumped by the controller to ask for snapshots
	// Controller-owned state of adaptive stopping.
	pending   bool          // snapshots asked for and not yet all answered
	nextCheck time.Duration // elapsed time of the next precision check
	stoppedBy string
	cpuBegin  time.Duration // processCPU when the barrier opened
}

// lose records that a client lost its connection; the controller then
// ends the point with err as the reason.
func (r *run) lose(err error) {
	if r.lost.CompareAndSwap(nil, &err) {
		r.poke()
	}
}

// poke wakes the controller.
func (r *run) poke() {
	select {
	case r.news <- struct{}{}:
	default:
	}
}

// clientReady counts a client done with its warm-up; the last one wakes the
// controller to open the barrier.
func (r *run) clientReady() {
	if r.ready.Add(1) == r.total {
		r.poke()
	}
}

// ns turns a time into the clients' clock: ns since origin, always > 0.
func (r *run) ns(t time.Time) int64 { return int64(t.Sub(r.origin)) + 1 }

// now is r.ns(time.Now()) from the monotonic clock alone: time.Now reads
// the wall clock too, a second clock read on every call of the loop.
func (r *run) now() int64 { return int64(time.Since(r.origin)) + 1 }

func (r *run) stopped() bool { return r.stopAt.Load() != 0 }

// RunPoint measures one repetition of one point: every client of every
// stream runs in its own goroutine, makes s.Warmup calls that are
// discarded, waits for all others at a barrier, then calls in a loop until
// the first stream has run s.MinDuration and s.MinSamples calls, or
// s.MaxDuration passed, or ctx is done. All streams stop together; calls
// still running then finish (see drain) but are not counted. It returns
// one Result per stream, in order. When ctx ends the point early the
// partial results are returned with an error.
func RunPoint(ctx context.Context, s Sampling, streams []Stream) ([]Result, error) {
	return runPoint(ctx, s, streams, nil)
}

func runPoint(ctx context.Context, s Sampling, streams []Stream, gate Gate) ([]Result, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("measure: %w", err)
	}
	if len(streams) == 0 {
		return nil, errors.New("measure: no streams")
	}
	for i, st := range streams {
		if st.clients() == 0 {
			return nil, fmt.Errorf("measure: stream %d (%q) has no clients", i, st.Op)
		}
		for j := 0; j < st.clients(); j++ {
			if st.opCall(j) == nil {
				return nil, fmt.Errorf("measure: stream %d (%q) client %d: nil call", i, st.Op, j)
			}
		}
	}

	runCtx, stopCalls := context.WithCancelCause(ctx)
	defer stopCalls(errStopped)
	r := &run{origin: time.Now(), probe: int64(s.Probe), start: make(chan struct{}), news: make(chan struct{}, 1), ctx: runCtx, gate: gate}

	clients := make([][]*client, len(streams))
	var all []*client
	live := liveFrom(ctx)
	for i, st := range streams {
		for j := 0; j < st.clients(); j++ {
			c := &client{call: st.opCall(j), ops: newOpStats(len(st.Ops)), wantSnap: i == 0 && s.Precision > 0, live: live.client(i, st.Op)}
			c.ctx, c.cancel = context.WithCancelCause(runCtx)
			clients[i] = append(clients[i], c)
			all = append(all, c)
		}
	}
	r.total = int64(len(all))

	var wg sync.WaitGroup
	for _, c := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			readied := false
			defer func() {
				// A panicking call ends its client, not the process.
				if p := recover(); p != nil {
					c.panicked = fmt.Sprint(p)
					c.cur.Store(idle)
					if !readied {
						r.clientReady()
					} else if !r.stopped() {
						c.ops[0].fail(r.now(), "panic: "+c.panicked)
					}
				}
			}()
			c.warmup(r, s.Warmup)
			readied = true
			r.clientReady()
			<-r.start
			c.measure(r)
		}()
	}

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	begin, interrupted := r.control(ctx, s, all, clients)
	var cpu time.Duration
	if begin != 0 && r.cpuBegin != 0 {
		cpu = processCPU() - r.cpuBegin
	}
	if interrupted {
		stopCalls(errStopped)
	}
	if err := r.drain(ctx, s, all, done, stopCalls); err != nil {
		return nil, err
	}

	elapsed := time.Duration(r.stopAt.Load() - begin)
	if begin == 0 {
		elapsed = 0
	}
	results := make([]Result, len(streams))
	var errs []error
	for i, st := range streams {
		results[i] = merge(st.Op, st.Ops, clients[i], elapsed)
		results[i].StoppedBy = r.stoppedBy
		results[i].ClientCPU = cpu
		for j, c := range clients[i] {
			if c.panicked != "" {
				errs = append(errs, fmt.Errorf("measure: stream %d (%q) client %d panicked: %s", i, st.Op, j, c.panicked))
			}
		}
	}
	switch {
	case r.gateErr != nil:
		errs = append(errs, fmt.Errorf("measure: the point never started: %w", r.gateErr))
	case interrupted:
		errs = append(errs, fmt.Errorf("measure: point interrupted: %w", context.Cause(ctx)))
	}
	if lost := r.lost.Load(); lost != nil {
		errs = append(errs, fmt.Errorf("measure: point ended early: %w", *lost))
	}
	return results, errors.Join(errs...)
}

// control runs the barrier, the watchdog and the stop conditions. It
// returns the measurement start (0 if it never started) and whether ctx
// ended the point.
//
// It does not poll: it sleeps until the next moment something can happen
// (the end of the minimum or maximum time, the next precision check, the
// earliest moment a call in flight can reach the ceiling) or a client has
// news (the last one is ready, one is lost). Each wake-up of the
// controller costs a thread wake-up and a pass of the scheduler; polling
// every few milliseconds cost more client CPU than a lean database
// client spends on a query.
func (r *run) control(ctx context.Context, s Sampling, all []*client, streams [][]*client) (begin int64, interrupted bool) {
	first := streams[0]
	// A point runs at least a poll interval, even when it asks for no
	// time and no calls, so that its clients get going.
	minRun := max(s.MinDuration, pollInterval)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var wake int64 // when to look again, in r.ns time; 0: at once
	// A gate may say when it needs a tick (workers: fewer wake-ups per
	// process when many run side by side).
	waker, _ := r.gate.(GateWaker)
	for {
		if wake != 0 {
			timer.Reset(time.Duration(wake - r.now()))
			select {
			case <-ctx.Done():
				interrupted = true
			case <-r.news:
			case <-timer.C:
			}
		}
		now := r.now()
		if interrupted {
			r.stoppedBy = StopInterrupted
			r.stopAt.Store(now)
			if begin == 0 {
				close(r.start)
			}
			return begin, true
		}
		// wake is the earliest of the moments below; never later than
		// the watchdog's next possible cut.
		wake = now + int64(time.Hour)
		if r.probe > 0 {
			wake = r.watchAll(all, now)
		}
		if r.lost.Load() != nil {
			// A client lost its connection: the point ends now.
			if begin == 0 {
				r.stopAt.Store(now)
				close(r.start)
				return 0, false
			}
			r.stopAt.Store(now)
			return begin, false
		}
		if begin == 0 {
			if r.ready.Load() < r.total {
				continue // the last client to get ready says so
			}
			if r.gate != nil {
				// Every client is idle at the barrier: the watchdog has
				// nothing to watch while the gate waits.
				if err := r.gate.Start(ctx); err != nil {
					r.gateErr = err
					r.stopAt.Store(r.now())
					close(r.start)
					return 0, true
				}
			}
			windowStart(ctx)
			begin = r.now()
			r.cpuBegin = processCPU()
			close(r.start)
			if waker != nil {
				waker.Wake(r.poke)
			}
			if r.gate == nil {
				wake = min(wake, begin+int64(min(minRun, s.MaxDuration)))
			} else {
				wake = min(wake, begin+int64(pollInterval))
			}
			continue
		}
		if r.gate != nil {
			calls := make([]int64, len(streams))
			for i, cs := range streams {
				calls[i] = callsOf(cs)
			}
			if r.gate.Tick(calls) {
				r.stopAt.Store(now)
				return begin, false
			}
			// A coordinator that stops adaptively asks for the first
			// stream's histogram so far; the clients answer between calls.
			if sg, ok := r.gate.(SnapshotGate); ok && first[0].wantSnap {
				if !r.pending && sg.SnapshotWanted() {
					r.snapReq.Add(1)
					r.pending = true
				}
				if r.pending {
					if h := r.collect(first); h != nil {
						sg.Snapshot(h)
					} else {
						wake = min(wake, now+int64(pollInterval))
					}
				}
			}
			if waker != nil {
				wake = min(wake, max(now+1, r.ns(waker.NextTick())))
			} else {
				wake = min(wake, now+int64(pollInterval))
			}
			continue
		}
		el := time.Duration(now - begin)
		wake = min(wake, begin+int64(s.MaxDuration))
		stop, wait, held := s.Bound(el, minRun, callsOf(first))
		switch {
		case stop != "":
			r.stoppedBy = stop
		case held && wait > 0:
			wake = min(wake, now+int64(wait))
			continue
		case held:
			// Past the minimum time with too few calls: slow calls,
			// where looking every poll interval costs little.
			wake = min(wake, now+int64(pollInterval))
			continue
		case r.precise(s, first, el):
			r.stoppedBy = StopPrecision
		default:
			if r.pending {
				wake = min(wake, now+int64(pollInterval)) // for the snapshots
			} else {
				wake = min(wake, begin+int64(r.nextCheck))
			}
			continue
		}
		r.stopAt.Store(now)
		return begin, false
	}
}

// watchAll cuts the calls in flight past the ceiling and returns the
// earliest moment another can reach it: the oldest start still in flight
// plus the probe, or now plus the probe (a call that starts later reaches
// its ceiling later).
func (r *run) watchAll(all []*client, now int64) int64 {
	next := now + r.probe
	for _, c := range all {
		if s := c.watch(now, r.probe); s > 0 {
			next = min(next, s+r.probe)
		}
	}
	return next
}

// precise runs the adaptive stopping rule without blocking: at a check
// time it asks the first stream's clients for snapshots (each answers
// between two calls); once all have answered it merges them and reports
// whether p50, and p99 where asked, are known within the precision. A
// client stuck in a long call delays the answer, never the ceiling or the
// max duration.
func (r *run) precise(s Sampling, first []*client, el time.Duration) bool {
	if !r.pending {
		if el < r.nextCheck {
			return false
		}
		r.snapReq.Add(1)
		r.pending = true
		return false
	}
	h := r.collect(first)
	if h == nil {
		return false
	}
	r.nextCheck = NextCheck(el)
	return Precise(h, s)
}

// collect returns the first stream's histogram merged from the clients'
// snapshots once all have answered the pending request (nil before), and
// ends the request.
func (r *run) collect(first []*client) *hdrhistogram.Histogram {
	req := r.snapReq.Load()
	var counts []int64
	var geo *hdrhistogram.Snapshot
	for _, c := range first {
		if sn := c.snapOut.Load(); sn == nil || sn.req != req {
			return nil
		}
	}
	for _, c := range first {
		sn := c.snapOut.Load().hist
		if geo == nil {
			geo, counts = sn, make([]int64, len(sn.Counts))
		}
		for i, n := range sn.Counts {
			counts[i] += n
		}
	}
	r.pending = false
	return hdrhistogram.Import(&hdrhistogram.Snapshot{
		LowestTrackableValue: geo.LowestTrackableValue, HighestTrackableValue: geo.HighestTrackableValue,
		SignificantFigures: geo.SignificantFigures, IntegerToDoubleConversionRatio: geo.IntegerToDoubleConversionRatio,
		Counts: counts,
	})
}

// Precise is the adaptive stopping rule: p50, and p99 where asked, known
// within s's precision (the 95% order-statistic interval's half-width,
// relative) from the calls in h. A coordinator of worker processes
// applies it to their merged histograms.
func Precise(h *hdrhistogram.Histogram, s Sampling) bool {
	if relCI(h, 0.5) > s.Precision {
		return false
	}
	return s.PrecisionP99 == 0 || relCI(h, 0.99) <= s.PrecisionP99
}

// relCI is the half-width of the 95% order-statistic confidence interval
// of the q-quantile of h, relative to that quantile; +Inf when the
// histogram holds too few values to bracket it.
func relCI(h *hdrhistogram.Histogram, q float64) float64 {
	n := h.TotalCount()
	lo, hi, ok := stats.QuantileRanks(n, q, 0.95)
	if !ok {
		return math.Inf(1)
	}
	at := func(rank int64) float64 { return float64(h.ValueAtPercentile(100 * float64(rank) / float64(n))) }
	center := float64(h.ValueAtPercentile(100 * q))
	if center <= 0 {
		return math.Inf(1)
	}
	// Never narrower than the histogram's own resolution: two ranks in
	// one bucket do not make the quantile known better than the bucket,
	// so a precision finer than that is never reached.
	return max((at(hi)-at(lo))/2/center, histResolution)
}

// histResolution is the relative half-width of a histogram bucket:
// histDigits significant digits.
var histResolution = 0.5 * math.Pow(10, -histDigits)

// drain waits for the calls in flight at the stop, as pgbench does at the
// end of -T, with the watchdog still cutting them at the ceiling.
// Cancelling them instead would send a cancel to the database at the end
// of every point (a new connection for PostgreSQL, which may also land on
// the next rep's first query). Calls still running after
// max(Probe, minStopGrace) are cancelled; after minStopGrace more the
// point fails, leaving their goroutines behind (they touch only their own
// client, which is dropped).
func (r *run) drain(ctx context.Context, s Sampling, all []*client, done <-chan struct{}, stopCalls context.CancelCauseFunc) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	ctxDone := ctx.Done()
	limit := time.Now().Add(max(s.Probe, minStopGrace))
	cancelled := false
	for {
		// Wake at the limit, or earlier when a call in flight can reach
		// the ceiling first.
		wake := limit
		if r.probe > 0 {
			now := time.Now()
			if next := r.origin.Add(time.Duration(r.watchAll(all, r.ns(now)) - 1)); next.Before(wake) {
				wake = next
			}
		}
		timer.Reset(time.Until(wake))
		select {
		case <-done:
			return nil
		case <-ctxDone:
			ctxDone = nil
			limit = time.Now() // the caller wants out: cancel now
		case <-timer.C:
		}
		now := time.Now()
		if now.Before(limit) {
			continue
		}
		if cancelled {
			return fmt.Errorf("measure: calls still running %s after they were cancelled: a call ignores its context", minStopGrace)
		}
		stopCalls(errStopped)
		cancelled = true
		limit = now.Add(minStopGrace)
	}
}

func callsOf(cs []*client) int64 {
	var n int64
	for _, c := range cs {
		n += c.calls.Load()
	}
	return n
}

// watch cancels the client's call if it started more than probe ns ago
// (the CAS makes sure it is still the same call); otherwise it returns the
// start of the call in flight, 0 if none.
func (c *client) watch(now, probe int64) int64 {
	s := c.cur.Load()
	if s <= idle {
		return 0
	}
	if now-s < probe {
		return s
	}
	c.mu.Lock()
	if c.cur.CompareAndSwap(s, claimed) {
		c.cancel(ErrCeiling)
	}
	c.mu.Unlock()
	return 0
}

// renew gives the client a fresh context after the watchdog cancelled the
// old one. The lock waits for a watchdog between its CAS and its cancel.
func (c *client) renew(r *run) {
	c.mu.Lock()
	c.cancel(ErrCeiling)
	c.ctx, c.cancel = context.WithCancelCause(r.ctx)
	c.mu.Unlock()
}

func (c *client) warmup(r *run, n int) {
	for i := 0; i < n && !r.stopped(); i++ {
		s := r.now()
		c.cur.Store(s)
		if _, err := c.call(c.ctx); errors.Is(err, ErrClientLost) {
			r.lose(err)
			c.cur.CompareAndSwap(s, idle)
			return
		}
		if !c.cur.CompareAndSwap(s, idle) {
			c.renew(r)
			c.cur.Store(idle)
		}
	}
}

// measure is the hot loop: one time.Now per call, no locks, no channels.
func (c *client) measure(r *run) {
	ps := r.now()
	c.cur.Store(ps)
	for !r.stopped() {
		op, err := c.call(c.ctx)
		ns := r.now()
		o := &c.ops[op]
		// Ends this call and publishes the next one's start in one step;
		// it fails only when the watchdog claimed the call.
		cut := !c.cur.CompareAndSwap(ps, ns)
		if stop := r.stopAt.Load(); stop != 0 && ns >= stop {
			break // finished after the stop: outside the measured window
		}
		switch {
		case cut:
			o.timeout++
			o.fail(ns, fmt.Sprintf("%s of %s", ErrCeiling, time.Duration(r.probe)))
			c.live.Error()
			c.renew(r)
			c.cur.Store(ns)
		case err != nil:
			if r.ctx.Err() != nil {
				// ctx ended the point before the controller noticed: not
				// the call's failure.
				c.cur.Store(idle)
				return
			}
			o.fail(ns, err.Error())
			c.live.Error()
			if errors.Is(err, ErrClientLost) {
				// One error for the client, not one per call: it stops,
				// and the controller ends the point with the reason.
				c.calls.Add(1)
				r.lose(err)
				c.cur.Store(idle)
				return
			}
		default:
			d := ns - ps
			if d > o.max {
				o.max = d
			}
			if o.hist.RecordValue(d) != nil {
				_ = o.hist.RecordValue(histHighest)
			}
			o.ok++
			c.live.Record(time.Duration(d))
		}
		c.calls.Add(1)
		if c.wantSnap {
			if req := r.snapReq.Load(); req != c.snapSeen {
				c.snapSeen = req
				c.snapOut.Store(&snapshot{req: req, hist: c.histCopy()})
				// The copy is not part of the next call.
				if now := r.now(); c.cur.CompareAndSwap(ns, now) {
					ns = now
				}
			}
		}
		ps = ns
	}
	c.cur.Store(idle)
}

func (o *opStats) fail(at int64, msg string) {
	if o.errs == 0 {
		o.firstErr, o.firstErrAt = msg, at
	}
	o.errs++
}

// merge folds the clients of one stream into its Result: with operations,
// one Result per operation and their total.
func merge(op string, ops []string, cs []*client, elapsed time.Duration) Result {
	if len(ops) == 0 {
		return mergeOp(op, cs, 0, elapsed)
	}
	total := Result{Op: op, Clients: len(cs), Elapsed: elapsed, Hist: hdrhistogram.New(histLowest, histHighest, histDigits)}
	var maxNs, firstAt int64
	for i, name := range ops {
		r := mergeOp(name, cs, i, elapsed)
		total.Hist.Merge(r.Hist)
		total.Count += r.Count
		total.Errors += r.Errors
		total.Timeouts += r.Timeouts
		maxNs = max(maxNs, int64(r.Max))
		for _, c := range cs {
			if o := &c.ops[i]; o.errs > 0 && (total.FirstError == "" || o.firstErrAt < firstAt) {
				total.FirstError, firstAt = name+": "+o.firstErr, o.firstErrAt
			}
		}
		total.Ops = append(total.Ops, r)
	}
	total.summarize(maxNs)
	return total
}

// mergeOp folds operation i of the clients of one stream into a Result.
func mergeOp(op string, cs []*client, i int, elapsed time.Duration) Result {
	res := Result{Op: op, Clients: len(cs), Elapsed: elapsed}
	h := cs[0].ops[i].hist
	var maxNs, firstAt int64
	for j, c := range cs {
		o := &c.ops[i]
		if j > 0 {
			h.Merge(o.hist)
		}
		res.Count += o.ok
		res.Errors += o.errs
		res.Timeouts += o.timeout
		maxNs = max(maxNs, o.max)
		if o.errs > 0 && (res.FirstError == "" || o.firstErrAt < firstAt) {
			res.FirstError, firstAt = o.firstErr, o.firstErrAt
		}
	}
	res.Hist = h
	res.summarize(maxNs)
	return res
}

// summarize sets the percentiles from Hist, never above maxNs, and the
// throughput from Count and Elapsed.
func (res *Result) summarize(maxNs int64) {
	if res.Count > 0 {
		// HDR reports the top of a value's bucket; never above the exact max.
		q := res.Hist.ValueAtPercentilesSlice([]float64{50, 95, 99})
		res.P50 = time.Duration(min(q[0], maxNs))
		res.P95 = time.Duration(min(q[1], maxNs))
		res.P99 = time.Duration(min(q[2], maxNs))
		res.Max = time.Duration(maxNs)
	}
	if res.Hist != nil {
		res.P50RelCI, res.P99RelCI = relCI(res.Hist, 0.5), relCI(res.Hist, 0.99)
	}
	if res.Elapsed > 0 {
		res.Throughput = float64(res.Count) / res.Elapsed.Seconds()
	}
}
