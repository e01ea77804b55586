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
)

// Timed says how a timed run is measured: a fixed duration, cut into
// windows, with streams that are closed loop (calls back to back) or open
// loop (calls at a fixed rate). Sustained and open-loop scenarios use it;
// RunPoint stays the closed-loop sampler of every other point.
type Timed struct {
	Warmup   int           // calls per client discarded before the clock starts
	Duration time.Duration // measured wall time
	// Window is how often OnWindow receives each stream's last interval;
	// 0 means one window, the whole run.
	Window time.Duration
	// LateBound: an open-loop call that starts more than this after its
	// intended start counts as late.
	LateBound time.Duration
	// Grace is how long calls still running at the end may go on before
	// they are cancelled; 0 means 5 s.
	Grace time.Duration
	// Barrier, when set, is called once every client is warmed up and
	// before the clock starts: a worker process waits there for its
	// coordinator's start. An error ends the run before it measured.
	Barrier func(context.Context) error
	// Probe is the per-call ceiling (warm-up calls included): a call
	// running longer is cancelled and counted as a failed call and a
	// timeout. 0: none.
	Probe time.Duration
}

// TimedStream is one stream of a timed run.
type TimedStream struct {
	Op    string
	Calls []Call // one per client
	// Rate > 0 makes the stream open loop: calls per second over all its
	// clients, each call's latency measured from its intended start.
	Rate float64
	// Offset (open loop) delays the whole schedule: call i is due at
	// Offset + i/Rate. Worker processes sharing a stream offset theirs
	// so that their calls interleave as one process's would.
	Offset time.Duration
	// Ops and OpCalls: a stream of operations, as in Stream; every
	// Window and Result then holds one Result per operation in Ops.
	Ops     []string
	OpCalls []OpCall
}

func (s TimedStream) stream() Stream {
	return Stream{Op: s.Op, Calls: s.Calls, Ops: s.Ops, OpCalls: s.OpCalls}
}

// Window is one stream's measurement over one interval of a timed run.
// Its Result's Hist is the interval's histogram.
type Window struct {
	Stream     int
	Index      int           // from 0
	Start, End time.Duration // since the measurement began
	Result
}

// tclient is one client of a timed run. Its counters sit behind a mutex
// so the window collector can swap them without stopping the client; the
// lock is uncontended except once per window.
type tclient struct {
	call    OpCall
	live    *LiveCounts // the live view's counters (nil: none)
	mu      sync.Mutex
	ops     []tstats // one per operation (one for a stream without)
	started int64    // open loop: calls started (never reset)

	// The ceiling's watchdog: cur is the start of the call in flight (0
	// idle, claimed once the watchdog cut it); ctx is the client's own,
	// replaced after a cut.
	cur    atomic.Int64
	cmu    sync.Mutex
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// invoke runs one call that started at start (the clients' clock) and
// reports whether the watchdog cut it at the ceiling.
func (c *tclient) invoke(run context.Context, start int64) (op int, err error, cut bool) {
	c.cur.Store(start)
	op, err = c.call(c.ctx)
	if c.cur.CompareAndSwap(start, idle) {
		return op, err, false
	}
	// Claimed: the call was cancelled at the ceiling. A fresh context
	// for the next one.
	c.cmu.Lock()
	c.cancel(ErrCeiling)
	c.ctx, c.cancel = context.WithCancelCause(run)
	c.cmu.Unlock()
	c.cur.Store(idle)
	return op, err, true
}

// watch cuts the client's call if it started probe or more ago.
func (c *tclient) watch(now, probe int64) {
	s := c.cur.Load()
	if s <= idle || now-s < probe {
		return
	}
	c.cmu.Lock()
	if c.cur.CompareAndSwap(s, claimed) {
		c.cancel(ErrCeiling)
	}
	c.cmu.Unlock()
}

// tstats is one client's counters of one operation in the current window.
type tstats struct {
	// spare is the collector's: swapped in for hist at each window, so
	// windows allocate nothing per client.
	spare   *hdrhistogram.Histogram
	hist    *hdrhistogram.Histogram
	ok      int64
	errs    int64
	late    int64
	timeout int64
	max     int64
	// first error, kept until the end
	firstErr   string
	firstErrAt int64
}

func newTStats(n int) []tstats {
	out := make([]tstats, max(n, 1))
	for i := range out {
		out[i].hist, out[i].spare = newHist(), newHist()
	}
	return out
}

func (c *tclient) record(op int, lat int64, err error, late bool, at int64) {
	c.mu.Lock()
	o := &c.ops[op]
	if errors.Is(err, ErrCeiling) {
		o.timeout++
	}
	switch {
	case err != nil:
		if o.firstErr == "" {
			o.firstErr, o.firstErrAt = err.Error(), at
		}
		o.errs++
		c.live.Error()
	default:
		if lat > o.max {
			o.max = lat
		}
		if o.hist.RecordValue(lat) != nil {
			_ = o.hist.RecordValue(histHighest)
		}
		o.ok++
		c.live.Record(time.Duration(lat))
	}
	if late {
		o.late++
	}
	c.mu.Unlock()
}

// tstream is the shared state of one stream.
type tstream struct {
	TimedStream
	clients  []*tclient
	next     atomic.Int64              // open loop: the next slot to start
	interval float64                   // open loop: ns between intended starts
	slots    int64                     // open loop: intended calls in the run
	total    []*hdrhistogram.Histogram // per operation
	sum      []Result                  // per operation: running totals over the windows
}

// timedBegan, when set (by tests), learns when measurement began: the
// intended start of an open-loop stream's first call.
var timedBegan func(time.Time)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(histLowest, histHighest, histDigits) }

// RunTimed runs streams for t.Duration after each client's warm-up and a
// start barrier, calling onWindow (when not nil) with every stream's
// Window at each window's end, from one goroutine. It returns one Result
// per stream over the whole run; its Hist is the merge of the windows'.
// Closed-loop calls count when they end within the duration; open-loop
// calls count when they were due within it, however late they end, so a
// stall shows in the percentiles (coordinated omission corrected).
func RunTimed(ctx context.Context, t Timed, streams []TimedStream, onWindow func([]Window)) ([]Result, error) {
	if t.Duration <= 0 {
		return nil, fmt.Errorf("measure: timed run: duration %s must be positive", t.Duration)
	}
	if t.Window < 0 || t.LateBound < 0 || t.Warmup < 0 {
		return nil, errors.New("measure: timed run: window, late bound and warm-up must not be negative")
	}
	if len(streams) == 0 {
		return nil, errors.New("measure: no streams")
	}
	live := liveFrom(ctx)
	grace := t.Grace
	if grace <= 0 {
		grace = minStopGrace
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(errStopped)
	sts := make([]*tstream, len(streams))
	nclients := 0
	for i, s := range streams {
		ms := s.stream()
		if ms.clients() == 0 {
			return nil, fmt.Errorf("measure: stream %d (%q) has no clients", i, s.Op)
		}
		if s.Rate < 0 || math.IsNaN(s.Rate) || math.IsInf(s.Rate, 0) {
			return nil, fmt.Errorf("measure: stream %d (%q): rate %v", i, s.Op, s.Rate)
		}
		if s.Offset < 0 {
			return nil, fmt.Errorf("measure: stream %d (%q): offset %s", i, s.Op, s.Offset)
		}
		st := &tstream{TimedStream: s}
		for _, name := range opNames(s) {
			st.total = append(st.total, newHist())
			st.sum = append(st.sum, Result{Op: name, Clients: ms.clients(), Rate: s.Rate})
		}
		if s.Rate > 0 {
			st.interval = 1e9 / s.Rate
			st.slots = max(int64(math.Ceil(float64(t.Duration-s.Offset)/st.interval)), 0)
		}
		for j := 0; j < ms.clients(); j++ {
			call := ms.opCall(j)
			if call == nil {
				return nil, fmt.Errorf("measure: stream %d (%q) client %d: nil call", i, s.Op, j)
			}
			c := &tclient{call: call, ops: newTStats(len(s.Ops)), live: live.client(i, s.Op)}
			c.ctx, c.cancel = context.WithCancelCause(runCtx)
			st.clients = append(st.clients, c)
		}
		nclients += ms.clients()
		sts[i] = st
	}

	origin := time.Now()
	now := func() int64 { return int64(time.Since(origin)) + 1 }
	if t.Probe > 0 {
		stopWatch := watchTimed(sts, int64(t.Probe), now)
		defer stopWatch()
	}
	var ready sync.WaitGroup
	ready.Add(nclients)
	start := make(chan struct{})
	var begin, end int64 // set before start is closed
	var wg sync.WaitGroup
	var panics []string
	var pmu sync.Mutex
	for _, st := range sts {
		for _, c := range st.clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				readied := false
				defer func() {
					if p := recover(); p != nil {
						pmu.Lock()
						panics = append(panics, fmt.Sprintf("stream %q: %v", st.Op, p))
						pmu.Unlock()
						if !readied {
							ready.Done()
						}
					}
				}()
				for i := 0; i < t.Warmup && runCtx.Err() == nil; i++ {
					_, _, _ = c.invoke(runCtx, now())
				}
				readied = true
				ready.Done()
				<-start
				if st.Rate > 0 {
					openLoop(runCtx, st, c, begin, end, int64(t.LateBound), int64(grace), int64(t.Probe), now)
				} else {
					closedLoop(runCtx, c, end, int64(t.Probe), now)
				}
			}()
		}
	}
	ready.Wait()
	if t.Barrier != nil {
		if err := t.Barrier(runCtx); err != nil {
			// Nobody measured: release the clients, which see the run
			// cancelled and return.
			cancel(errStopped)
			close(start)
			wg.Wait()
			return nil, fmt.Errorf("measure: timed run: before the start: %w", err)
		}
	}
	windowStart(ctx)
	begin = now()
	end = begin + int64(t.Duration)
	cpuBegin := processCPU()
	if timedBegan != nil {
		timedBegan(origin.Add(time.Duration(begin - 1)))
	}
	close(start)

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	// Windows: collected at begin + k*Window while the run lasts, then
	// once more after every call has returned.
	index := 0
	last := begin
	var interrupted error
	if t.Window > 0 {
		for next := begin + int64(t.Window); next < end; next += int64(t.Window) {
			timer := time.NewTimer(time.Duration(next - now()))
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				interrupted = context.Cause(ctx)
			}
			if interrupted != nil {
				break
			}
			collect(sts, index, last-begin, next-begin, onWindow)
			index++
			last = next
		}
	}
	if interrupted == nil {
		timer := time.NewTimer(time.Duration(end - now()))
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			interrupted = context.Cause(ctx)
		}
	}
	var cpu time.Duration
	if cpuBegin != 0 {
		cpu = processCPU() - cpuBegin
	}
	if interrupted != nil {
		cancel(errStopped)
	}
	if err := waitDone(done, grace, cancel); err != nil {
		return nil, err
	}
	stop := end
	if interrupted != nil {
		stop = min(now(), end)
	}
	collect(sts, index, last-begin, stop-begin, onWindow)

	elapsed := time.Duration(stop - begin)
	out := make([]Result, len(sts))
	var errs []error
	for i, st := range sts {
		var dropped int64
		if st.Rate > 0 {
			var started int64
			for _, c := range st.clients {
				started += c.started
			}
			due := st.slots
			if interrupted != nil {
				due = min(st.slots, max(int64(math.Ceil(float64(elapsed-st.Offset)/st.interval)), 0))
			}
			dropped = max(due-started, 0)
		}
		rs := make([]Result, len(st.sum))
		for j := range st.sum {
			rs[j] = st.sum[j]
			rs[j].Elapsed = elapsed
			fill(&rs[j], st.total[j], elapsed)
			rs[j].ClientCPU = cpu
		}
		r := rs[0]
		if len(st.Ops) > 0 {
			r = totalOf(st.Op, rs, elapsed)
			r.Rate, r.ClientCPU = st.Rate, cpu
		}
		// The intended calls never started are the stream's: no operation
		// was drawn for them.
		r.Dropped = dropped
		out[i] = r
	}
	for _, p := range panics {
		errs = append(errs, fmt.Errorf("measure: a client panicked: %s", p))
	}
	if interrupted != nil {
		errs = append(errs, fmt.Errorf("measure: timed run interrupted: %w", interrupted))
	}
	return out, errors.Join(errs...)
}

// closedLoop calls back to back; a call counts when it ends before end.
func closedLoop(ctx context.Context, c *tclient, end, probe int64, now func() int64) {
	ps := now()
	for ps < end && ctx.Err() == nil {
		op, err, cut := c.invoke(ctx, ps)
		ns := now()
		if ns >= end {
			return
		}
		if err != nil && ctx.Err() != nil {
			return
		}
		if cut {
			err = fmt.Errorf("%w of %s", ErrCeiling, time.Duration(probe))
		}
		c.record(op, ns-ps, err, false, ns)
		ps = ns
	}
}

// watchTimed cuts every call running past the ceiling, looking four
// times per ceiling; it returns the function that stops it.
func watchTimed(sts []*tstream, probe int64, now func() int64) func() {
	done := make(chan struct{})
	tick := time.NewTicker(max(time.Duration(probe)/4, time.Millisecond))
	go func() {
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			n := now()
			for _, st := range sts {
				for _, c := range st.clients {
					c.watch(n, probe)
				}
			}
		}
	}()
	return func() { close(done) }
}

// openLoop takes the stream's next slot, waits for its intended start and
// calls. A slot still waiting for a client grace after the end is never
// started: it is counted as dropped by the caller.
func openLoop(ctx context.Context, st *tstream, c *tclient, begin, end, lateBound, grace, probe int64, now func() int64) {
	for ctx.Err() == nil {
		i := st.next.Add(1) - 1
		if i >= st.slots {
			return
		}
		intended := begin + int64(st.Offset) + int64(float64(i)*st.interval)
		n := now()
		if n > end+grace {
			return
		}
		if intended > n {
			timer := time.NewTimer(time.Duration(intended - n))
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				return
			}
		}
		started := now()
		c.mu.Lock()
		c.started++
		c.mu.Unlock()
		op, err, cut := c.invoke(ctx, started)
		ns := now()
		if err != nil && ctx.Err() != nil {
			return
		}
		if cut {
			err = fmt.Errorf("%w of %s", ErrCeiling, time.Duration(probe))
		}
		c.record(op, ns-intended, err, started-intended > lateBound, ns)
	}
}

// waitDone waits for the clients, cancelling their calls after grace; a
// call that ignores its context fails the run after grace more.
func waitDone(done <-chan struct{}, grace time.Duration, cancel context.CancelCauseFunc) error {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-done:
		return nil
	case <-timer.C:
	}
	cancel(errStopped)
	timer.Reset(grace)
	select {
	case <-done:
		return nil
	case <-timer.C:
		return fmt.Errorf("measure: calls still running %s after they were cancelled: a call ignores its context", grace)
	}
}

// collect swaps every client's counters for fresh ones and reports each
// stream's window; the windows also add up to the stream's totals.
func collect(sts []*tstream, index int, from, to int64, onWindow func([]Window)) {
	ws := make([]Window, len(sts))
	for i, st := range sts {
		w := Window{Stream: i, Index: index, Start: time.Duration(from), End: time.Duration(to)}
		rs := make([]Result, len(st.sum))
		for j := range st.sum {
			rs[j] = collectOp(st, j, time.Duration(to-from))
		}
		if len(st.Ops) == 0 {
			w.Result = rs[0]
		} else {
			w.Result = totalOf(st.Op, rs, time.Duration(to-from))
			w.Rate = st.Rate
		}
		ws[i] = w
	}
	if onWindow != nil {
		onWindow(ws)
	}
}

// collectOp swaps the counters of operation j of every client of st and
// returns the window's Result for it, adding it to the stream's totals.
func collectOp(st *tstream, j int, elapsed time.Duration) Result {
	sum := &st.sum[j]
	w := Result{Op: sum.Op, Clients: len(st.clients), Rate: st.Rate}
	h := newHist()
	var maxNs, firstAt int64
	for _, c := range st.clients {
		c.mu.Lock()
		o := &c.ops[j]
		old := o.hist
		o.hist = o.spare
		ok, errs, late, mx, to := o.ok, o.errs, o.late, o.max, o.timeout
		o.ok, o.errs, o.late, o.max, o.timeout = 0, 0, 0, 0, 0
		fe, fa := o.firstErr, o.firstErrAt
		c.mu.Unlock()
		h.Merge(old)
		old.Reset()
		o.spare = old // the collector's alone: the client swaps nothing
		w.Count += ok
		w.Errors += errs
		w.Late += late
		w.Timeouts += to
		maxNs = max(maxNs, mx)
		if fe != "" && (sum.FirstError == "" || fa < firstAt) {
			sum.FirstError, firstAt = fe, fa
		}
	}
	w.Max = time.Duration(maxNs)
	fill(&w, h, elapsed)
	st.total[j].Merge(h)
	sum.Count += w.Count
	sum.Errors += w.Errors
	sum.Late += w.Late
	sum.Timeouts += w.Timeouts
	sum.Max = max(sum.Max, w.Max)
	w.FirstError = sum.FirstError
	return w
}

// totalOf is a stream's total over its operations' results rs, which it
// keeps as its Ops.
func totalOf(op string, rs []Result, elapsed time.Duration) Result {
	t := Result{Op: op, Elapsed: elapsed, Hist: newHist()}
	for _, r := range rs {
		t.Clients = r.Clients
		t.Count += r.Count
		t.Errors += r.Errors
		t.Timeouts += r.Timeouts
		t.Late += r.Late
		t.Max = max(t.Max, r.Max)
		if t.FirstError == "" && r.FirstError != "" {
			t.FirstError = r.Op + ": " + r.FirstError
		}
		if r.Hist != nil {
			t.Hist.Merge(r.Hist)
		}
	}
	fill(&t, t.Hist, elapsed)
	t.Ops = rs
	return t
}

// opNames are the names of a stream's per-operation counters: its
// operations, or the stream itself.
func opNames(s TimedStream) []string {
	if len(s.Ops) > 0 {
		return s.Ops
	}
	return []string{s.Op}
}

// fill sets r's percentiles (never above its exact Max), histogram and
// throughput from h.
func fill(r *Result, h *hdrhistogram.Histogram, elapsed time.Duration) {
	r.Hist = h
	if r.Count > 0 {
		maxNs := int64(r.Max)
		q := h.ValueAtPercentilesSlice([]float64{50, 95, 99})
		r.P50 = time.Duration(min(q[0], maxNs))
		r.P95 = time.Duration(min(q[1], maxNs))
		r.P99 = time.Duration(min(q[2], maxNs))
	}
	if elapsed > 0 {
		r.Throughput = float64(r.Count) / elapsed.Seconds()
	}
}
