// Package progress prints a run's live progress, as pgbench -P does: on a
// terminal one status line redrawn in place (the running task's elapsed
// time, ops/s, p99 so far, errors, and the run's ETA from the plan's
// estimate); elsewhere (CI, pipes) a plain line every few seconds that
// contains "ETA". It is also the run's log writer, so log lines never
// tear the status line, and a results.Sink, to learn p99 from the rows.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// maxTTY bounds the redrawn line: a wrapped line could not be redrawn in
// place (the width of the terminal is not asked).
const maxTTY = 120

// Counter reports a task's work so far: calls (or rows) and errors.
type Counter func() (n, errs int64)

// Progress is safe for concurrent use.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	every   time.Duration
	total   time.Duration // the plan's estimate
	started time.Time
	done    time.Duration // estimates of the finished and skipped tasks
	ranEst  time.Duration // estimates of the finished tasks that had one
	ranTook time.Duration // what those tasks took
	cur     *task
	drawn   bool // tty: a status line is on screen
	stop    chan struct{}
	stopped chan struct{}
	now     func() time.Time
}

type task struct {
	name  string
	unit  string
	est   time.Duration
	start time.Time
	total int64 // of the unit, 0 when unknown
	count Counter
	p99   float64 // ms; < 0 while unknown
}

// New prints to w: redrawn in place when tty, else a line every `every`
// (10 s when 0). total is the plan's estimate of the whole run.
func New(w io.Writer, tty bool, every, total time.Duration) *Progress {
	if every <= 0 {
		every = 10 * time.Second
	}
	return &Progress{w: w, tty: tty, every: every, total: total, now: time.Now, started: time.Now()}
}

// SetTotal replaces the run's estimate (the runner knows which parts of
// the plan its phase runs).
func (p *Progress) SetTotal(total time.Duration) {
	p.mu.Lock()
	p.total = total
	p.mu.Unlock()
}

// Skip counts an estimated task as done without running it (a store
// already loaded).
func (p *Progress) Skip(est time.Duration) {
	p.mu.Lock()
	p.done += est
	p.mu.Unlock()
}

// Start prints the first line and starts the ticker.
func (p *Progress) Start() {
	p.mu.Lock()
	p.started = p.now()
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	p.mu.Unlock()
	p.print()
	tick := p.every
	if p.tty {
		tick = 500 * time.Millisecond
	}
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.print()
			}
		}
	}()
}

// Close stops the ticker and clears the status line.
func (p *Progress) Close() {
	if p.stop == nil {
		return
	}
	close(p.stop)
	<-p.stopped
	p.stop = nil
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// Begin starts a task that should take about est; unit names what count
// counts ("ops", "datoms"); total is how many are expected (0: unknown).
func (p *Progress) Begin(name, unit string, est time.Duration, total int64, count Counter) {
	p.mu.Lock()
	p.cur = &task{name: name, unit: unit, est: est, start: p.now(), total: total, count: count, p99: -1}
	p.mu.Unlock()
}

// End finishes the running task.
func (p *Progress) End() {
	p.mu.Lock()
	if p.cur != nil {
		p.done += p.cur.est
		if p.cur.est > 0 {
			p.ranEst += p.cur.est
			p.ranTook += p.now().Sub(p.cur.start)
		}
		p.cur = nil
	}
	p.mu.Unlock()
}

// Emit implements results.Sink: a window or a rep gives p99 so far.
func (p *Progress) Emit(rec results.Record) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == nil {
		return nil
	}
	switch r := rec.(type) {
	case results.WindowRow:
		p.cur.p99 = r.P99Ms
	case results.Raw:
		p.cur.p99 = r.P99Ms
	}
	return nil
}

// Write implements io.Writer for log lines: on a terminal the status
// line is cleared first and redrawn by the next tick.
func (p *Progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	return p.w.Write(b)
}

func (p *Progress) clear() {
	if p.tty && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// Line is the current progress line.
func (p *Progress) Line() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.line()
}

// slower is how much longer than their estimates the finished tasks
// took: at least 1 (a task ending early, cut by a ceiling or an error,
// says nothing of the others) and at most maxSlower.
func (p *Progress) slower() float64 {
	if p.ranEst <= 0 {
		return 1
	}
	return min(max(float64(p.ranTook)/float64(p.ranEst), 1), maxSlower)
}

// maxSlower bounds the ETA's correction: full.hcl's adaptive reps take
// between min_s and max_s, 20 times as long.
const maxSlower = 20

func (p *Progress) line() string {
	now := p.now()
	elapsed := now.Sub(p.started)
	// The plan's estimate is a low one (every adaptive rep stopping at
	// min_s): once tasks have finished, the rest is assumed to run as
	// much slower than its estimate as they did.
	slower := p.slower()
	remaining := time.Duration(float64(p.total-p.done) * slower)
	var b strings.Builder
	if t := p.cur; t != nil {
		te := now.Sub(t.start)
		remaining -= min(te, time.Duration(float64(t.est)*slower))
		n, errs := int64(0), int64(0)
		if t.count != nil {
			n, errs = t.count()
		}
		rate := 0.0
		if te > 0 {
			rate = float64(n) / te.Seconds()
		}
		fmt.Fprintf(&b, " | %s %s", t.name, short(te))
		if t.est > 0 {
			fmt.Fprintf(&b, "/%s", short(t.est))
		}
		if t.total > 0 {
			fmt.Fprintf(&b, " %d of %d %s", n, t.total, t.unit)
			if rate > 0 && n < t.total {
				if r := time.Duration(float64(t.total-n) / rate * float64(time.Second)); r > t.est-min(te, t.est) {
					remaining += r - (t.est - min(te, t.est)) // slower than estimated
				}
			}
		}
		if t.count != nil {
			fmt.Fprintf(&b, " %.1f %s/s", rate, t.unit)
			if t.p99 >= 0 {
				fmt.Fprintf(&b, " p99 %.3f ms", t.p99)
			}
			fmt.Fprintf(&b, " errors %d", errs)
		}
	}
	// ETA first: a terminal line too long for its width is cut at the end.
	return fmt.Sprintf("progress %s ETA %s", short(elapsed), short(max(remaining, 0))) + b.String()
}

func (p *Progress) print() {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.line()
	if p.tty {
		if len(l) > maxTTY {
			l = l[:maxTTY-3] + "..."
		}
		fmt.Fprint(p.w, "\r\033[K"+l)
		p.drawn = true
		return
	}
	fmt.Fprintln(p.w, l)
}

func short(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%ds", int(d.Seconds()))
}
