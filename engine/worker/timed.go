package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/measure"
)

// shareKey is one worker's shard of one stream: its j-th shard.
type shareKey struct {
	w *proc
	j int
}

// timedRun is the coordinator's state of one timed run.
type timedRun struct {
	p     *Pool
	rates []float64 // declared, per stream
	// wins holds the windows received and not yet handed over, by index.
	wins map[int]map[*proc]Msg
	next int // the next window index to hand over
	// seen are a worker's windows per shard, decoded: the totals of a
	// worker lost before its result.
	seen map[shareKey][]measure.Result
	// lostIn counts the windows in which a lost worker's shard was an
	// error.
	lostIn   map[shareKey]int64
	onWindow func([]measure.Window)
	errs     []error
}

// RunTimed runs a timed assignment across every worker: they warm up,
// the coordinator opens the barrier, and each worker measures for the
// assignment's duration and stops by itself, streaming its windows.
// Window k of every worker is merged exactly (histograms merged, counts,
// errors and late calls summed) and handed to onWindow as soon as every
// live worker sent it; rates are the streams' declared rates, which the
// merged rows carry. ctx ending sends stop. A worker lost mid-run: the
// others go on to the end, its share of every window from then on (and
// of the totals) is an error naming it, and the error is returned with
// the results. It returns the totals per stream.
func (p *Pool) RunTimed(ctx context.Context, rates []float64, onWindow func([]measure.Window)) ([]measure.Result, error) {
	if p.timed == nil {
		return nil, errors.New("the workers were not given a timed assignment")
	}
	for _, w := range p.procs {
		if w.dead != nil {
			return nil, w.dead
		}
	}
	if out, err := p.barrier(ctx, nil); err != nil {
		for s := range out {
			if s < len(rates) {
				out[s].Rate = rates[s] // the rows name the declared rate
			}
		}
		return out, err
	}
	p.sendAll(Msg{Type: TypeStart})
	t0 := time.Now()
	tr := &timedRun{p: p, rates: rates, wins: map[int]map[*proc]Msg{}, seen: map[shareKey][]measure.Result{},
		lostIn: map[shareKey]int64{}, onWindow: onWindow}
	t := p.timed.Measure()
	grace := t.Grace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	// A worker ends by itself at the duration, its calls cancelled after
	// grace and given up on after grace more: past that it is lost.
	deadline := time.NewTimer(t.Duration + 2*grace + 10*time.Second)
	defer deadline.Stop()
	done := ctx.Done()
	results := map[*proc]Msg{}
	var lost []error
	interrupted := false
collecting:
	for len(results) < len(p.alive()) {
		select {
		case ev := <-p.events:
			if err := p.failed(ev); err != nil {
				lost = append(lost, err)
				tr.emit(false)
				continue
			}
			switch ev.m.Type {
			case TypeWindow:
				if ev.m.Rep == p.rep {
					tr.add(ev.w, ev.m)
					tr.emit(false)
				}
			case TypeResult:
				if ev.m.Rep == p.rep {
					results[ev.w] = ev.m
				}
			}
		case <-done:
			interrupted, done = true, nil
			p.sendAll(Msg{Type: TypeStop})
			deadline.Reset(2*grace + 5*time.Second)
		case <-deadline.C:
			for _, w := range p.alive() {
				if _, ok := results[w]; !ok {
					w.dead = fmt.Errorf("worker %d (pid %d) sent no result after the run's end", w.index, w.pid)
					lost = append(lost, w.dead)
				}
			}
			break collecting
		}
	}
	tr.emit(true)
	out := tr.totals(results, time.Since(t0))
	errs := append(lost, tr.errs...)
	for w, m := range results {
		if m.Error != "" {
			errs = append(errs, fmt.Errorf("worker %d: %s", w.index, m.Error))
		}
	}
	if interrupted {
		errs = append(errs, fmt.Errorf("point interrupted: %w", context.Cause(ctx)))
	}
	return out, errors.Join(errs...)
}

// add keeps a worker's window until it can be merged.
func (tr *timedRun) add(w *proc, m Msg) {
	if m.Index < tr.next {
		tr.errs = append(tr.errs, fmt.Errorf("worker %d: window %d after it was merged", w.index, m.Index))
		return
	}
	if tr.wins[m.Index] == nil {
		tr.wins[m.Index] = map[*proc]Msg{}
	}
	tr.wins[m.Index][w] = m
}

// emit hands over, in order, every window every live worker has sent;
// final hands over what is left once no more can come.
func (tr *timedRun) emit(final bool) {
	for {
		got, ok := tr.wins[tr.next]
		if !ok {
			return
		}
		if !final {
			alive := tr.p.alive()
			if len(alive) == 0 {
				return
			}
			for _, w := range alive {
				if _, ok := got[w]; !ok {
					return
				}
			}
		}
		ws := tr.merge(tr.next, got)
		delete(tr.wins, tr.next)
		tr.next++
		if tr.onWindow != nil {
			tr.onWindow(ws)
		}
	}
}

// merge combines window index of every worker per stream. A lost
// worker's share is one error naming it; a live worker that sent
// nothing (the run was cut short) adds nothing.
func (tr *timedRun) merge(index int, got map[*proc]Msg) []measure.Window {
	p := tr.p
	parts := make([][]measure.Result, p.streams)
	ops := make([]string, p.streams)
	var start, end int64 = -1, 0
	for _, m := range got {
		if start < 0 || m.StartNs < start {
			start = m.StartNs
		}
		end = max(end, m.EndNs)
	}
	start = max(start, 0)
	for _, w := range p.procs {
		m, ok := got[w]
		for j, sh := range w.assign.Streams {
			ops[sh.Stream] = sh.Op
			r, has, err := share(m, ok, j, sh)
			if err != nil {
				tr.errs = append(tr.errs, fmt.Errorf("worker %d, window %d: %w", w.index, index, err))
			}
			switch {
			case has:
				k := shareKey{w, j}
				tr.seen[k] = append(tr.seen[k], r)
			case w.dead != nil:
				r = failedShare(sh, w.dead)
				tr.lostIn[shareKey{w, j}]++
			default:
				r = measure.Result{Op: sh.Op, Clients: sh.Clients()}
			}
			parts[sh.Stream] = append(parts[sh.Stream], r)
		}
	}
	out := make([]measure.Window, p.streams)
	for s := range out {
		out[s] = measure.Window{Stream: s, Index: index, Start: time.Duration(start), End: time.Duration(end),
			Result: combine(ops[s], time.Duration(end-start), parts[s])}
		out[s].Rate = tr.rate(s)
	}
	return out
}

func (tr *timedRun) rate(s int) float64 {
	if s < len(tr.rates) {
		return tr.rates[s]
	}
	return 0
}

// totals merges the workers' results per stream. A lost worker's share
// is what its windows held, with its errors from the windows it missed
// (at least one).
func (tr *timedRun) totals(results map[*proc]Msg, since time.Duration) []measure.Result {
	p := tr.p
	var elapsed time.Duration
	for _, m := range results {
		elapsed = max(elapsed, time.Duration(m.ElapsedNs))
	}
	if elapsed == 0 {
		elapsed = since
	}
	parts := make([][]measure.Result, p.streams)
	ops := make([]string, p.streams)
	for _, w := range p.procs {
		m, ok := results[w]
		for j, sh := range w.assign.Streams {
			ops[sh.Stream] = sh.Op
			r, has, err := share(m, ok, j, sh)
			if err != nil {
				tr.errs = append(tr.errs, fmt.Errorf("worker %d: %w", w.index, err))
			}
			switch {
			case has: // measured to the end
			case w.dead != nil:
				k := shareKey{w, j}
				r = combine(sh.Op, elapsed, tr.seen[k])
				r.Clients = sh.Clients()
				r.Errors += max(tr.lostIn[k], 1)
				r.FirstError = w.dead.Error()
			default:
				r = measure.Result{Op: sh.Op, Clients: sh.Clients()}
			}
			parts[sh.Stream] = append(parts[sh.Stream], r)
		}
	}
	cpu := p.workersCPU(results)
	out := make([]measure.Result, p.streams)
	for s := range out {
		out[s] = combine(ops[s], elapsed, parts[s])
		out[s].Rate = tr.rate(s)
		out[s].ClientCPU = cpu
	}
	return out
}

// combine is measure.Combine, which sums the open-loop counts too.
func combine(op string, elapsed time.Duration, parts []measure.Result) measure.Result {
	return measure.Combine(op, elapsed, parts)
}
