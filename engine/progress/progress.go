// Package progress prints a run's live progress, as pgbench -P does: per
// interval, each stream's ops/s, p50, p99 and errors over that interval
// (from the running point's measure.Live), the running task and the run's
// ETA. On a terminal it is one status line redrawn in place, fitted to
// the terminal's width, or with Lines a line per interval; elsewhere (CI,
// pipes) a plain line every interval that contains "ETA". It is also the
// run's log writer, so log lines never tear the status line, and a
// results.Sink, to learn p99 from the rows of points that have no live
// view (worker processes).
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// maxTTY bounds the redrawn line when the terminal's width is unknown: a
// wrapped line could not be redrawn in place.
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

	lines bool       // on a terminal too: a line per interval
	width func() int // the terminal's columns (nil or 0: unknown)
	// The ETA shown: it falls as soon as the work left does, and rises
	// only at the pace of etaRise, so that early rate estimates do not
	// throw it back and forth.
	eta   time.Duration
	etaAt time.Time
}

// etaRise is how fast the shown ETA catches up with a higher estimate:
// the gap closes over this much time.
const etaRise = 10 * time.Second

type task struct {
	name  string
	unit  string
	est   time.Duration
	start time.Time
	total int64 // of the unit, 0 when unknown
	count Counter
	p99   float64 // ms; < 0 while unknown
	live  *measure.Live
	ring  []sample // live snapshots of the last interval, oldest first
}

// sample is the live view at a moment.
type sample struct {
	at    time.Time
	snaps []measure.LiveSnapshot
}

// New prints to w: redrawn in place when tty, else a line every `every`
// (10 s when 0). total is the plan's estimate of the whole run.
func New(w io.Writer, tty bool, every, total time.Duration) *Progress {
	if every <= 0 {
		every = 10 * time.Second
	}
	return &Progress{w: w, tty: tty, every: every, total: total, now: time.Now, started: time.Now()}
}

// SetLines prints a line per interval on a terminal too (pgbench -P),
// instead of redrawing one line.
func (p *Progress) SetLines(on bool) {
	p.mu.Lock()
	p.lines = on
	p.mu.Unlock()
}

// SetWidth gives the terminal's width, asked at every line (it may be
// resized).
func (p *Progress) SetWidth(width func() int) {
	p.mu.Lock()
	p.width = width
	p.mu.Unlock()
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
	if p.redraws() {
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

// Watch gives the running task's live view: its lines then show each
// stream's numbers over the last interval.
func (p *Progress) Watch(l *measure.Live) {
	p.mu.Lock()
	if p.cur != nil {
		p.cur.live = l
		p.cur.ring = []sample{{at: p.now(), snaps: l.Snapshot()}}
	}
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

// redraws says whether the status line is redrawn in place.
func (p *Progress) redraws() bool { return p.tty && !p.lines }

// window is the interval the live numbers cover: the line interval, or
// on a redrawn line the last second.
func (p *Progress) window() time.Duration {
	if p.redraws() {
		return time.Second
	}
	return p.every
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
// says nothing of the others) and at most maxSlower. The ratio starts
// from slowerPrior of tasks as estimated, so that a tiny task (a load of
// milliseconds that took ten times its estimate) does not multiply the
// whole run's ETA.
func (p *Progress) slower() float64 {
	if p.ranEst <= 0 {
		return 1
	}
	return min(max(float64(p.ranTook+slowerPrior)/float64(p.ranEst+slowerPrior), 1), maxSlower)
}

// slowerPrior is the weight of the assumption that tasks take their
// estimate, against what finished tasks took.
const slowerPrior = 5 * time.Second

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
	var task string
	var streams []string
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
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s", t.name, short(te))
		if t.est > 0 {
			fmt.Fprintf(&b, "/%s", short(t.est))
		}
		if t.total > 0 {
			fmt.Fprintf(&b, " %d of %d %s", n, t.total, t.unit)
			// A rate from the first moments says little: the task's
			// own estimate stands until a tenth of it has run.
			if rate > 0 && n < t.total && te >= min(max(t.est/10, 2*time.Second), t.est) {
				if r := time.Duration(float64(t.total-n) / rate * float64(time.Second)); r > t.est-min(te, t.est) {
					remaining += r - (t.est - min(te, t.est)) // slower than estimated
				}
			}
		}
		if ivs := t.intervals(now, p.window()); ivs != nil {
			streams = ivs
		} else if t.count != nil {
			fmt.Fprintf(&b, " %.1f %s/s", rate, t.unit)
			if t.p99 >= 0 {
				fmt.Fprintf(&b, " p99 %.3f ms", t.p99)
			}
			fmt.Fprintf(&b, " errors %d", errs)
		}
		task = b.String()
	}
	eta := p.shownETA(now, max(remaining, 0))
	width := 0
	if p.width != nil {
		width = p.width()
	}
	if width <= 0 && p.redraws() {
		width = maxTTY
	}
	return fit(width, short(elapsed), short(eta), task, streams)
}

// shownETA is the ETA to show for an estimate of remaining at now: lower
// at once, higher only at the pace of etaRise.
func (p *Progress) shownETA(now time.Time, remaining time.Duration) time.Duration {
	if p.etaAt.IsZero() {
		p.eta, p.etaAt = remaining, now
		return remaining
	}
	dt := now.Sub(p.etaAt)
	if dt < 0 {
		dt = 0
	}
	counted := max(p.eta-dt, 0) // the last ETA, counted down
	shown := remaining
	if remaining > counted {
		shown = counted + time.Duration(float64(remaining-counted)*min(float64(dt)/float64(etaRise), 1))
	}
	p.eta, p.etaAt = shown, now
	return shown
}

// intervals takes a live sample at now and returns each stream's numbers
// since the sample one window ago (the oldest kept when the task is
// younger); nil without a live view or before any time has passed.
func (t *task) intervals(now time.Time, window time.Duration) []string {
	if t.live == nil || len(t.ring) == 0 {
		return nil
	}
	t.ring = append(t.ring, sample{at: now, snaps: t.live.Snapshot()})
	base := 0
	for i, s := range t.ring {
		if now.Sub(s.at) >= window {
			base = i
		}
	}
	t.ring = t.ring[base:]
	from, cur := t.ring[0], t.ring[len(t.ring)-1]
	dt := cur.at.Sub(from.at).Seconds()
	if dt <= 0 {
		return nil
	}
	out := make([]string, 0, len(cur.snaps))
	for i, sn := range cur.snaps {
		var prev measure.LiveSnapshot
		if i < len(from.snaps) && from.snaps[i].Name == sn.Name {
			prev = from.snaps[i]
		}
		iv := sn.Since(prev)
		out = append(out, fmt.Sprintf("%s %s ops/s p50 %s p99 %s ms err %d", iv.Name, opsRate(float64(iv.Calls+iv.Errors)/dt),
			millis(iv.P50), millis(iv.P99), iv.Errors))
	}
	return out
}

// opsRate writes a rate with three significant digits at most, 12.3k
// for thousands.
func opsRate(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.2fM", r/1e6)
	case r >= 1e4:
		return fmt.Sprintf("%.1fk", r/1e3)
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

// millis writes a latency in ms with three significant digits ("-" for
// none).
func millis(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case d <= 0:
		return "-"
	case ms >= 100:
		return fmt.Sprintf("%.0f", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f", ms)
	case ms >= 1:
		return fmt.Sprintf("%.2f", ms)
	}
	return fmt.Sprintf("%.3f", ms)
}

// fit lays the line out in width columns (0: unbounded). The ETA and
// the streams' numbers go last: first the word "progress", then the
// task's name (shortened, then left out), then the streams past the first
// that fit (counted: "+2 streams"); numbers are never cut.
func fit(width int, elapsed, eta, task string, streams []string) string {
	join := func(head, task string, streams []string, more int) string {
		l := head
		if task != "" {
			l += " | " + task
		}
		for _, s := range streams {
			l += " | " + s
		}
		switch {
		case more == 1:
			l += " | +1 stream"
		case more > 1:
			l += fmt.Sprintf(" | +%d streams", more)
		}
		return l
	}
	long, head := "progress "+elapsed+" ETA "+eta, elapsed+" ETA "+eta
	if l := join(long, task, streams, 0); width <= 0 || len(l) <= width {
		return l
	}
	if l := join(head, task, streams, 0); len(l) <= width {
		return l
	}
	if room := width - len(join(head, "", streams, 0)) - 3; task != "" && room >= 12 {
		return join(head, task[:room-3]+"...", streams, 0)
	}
	for n := len(streams); n > 0; n-- {
		if l := join(head, "", streams[:n], len(streams)-n); len(l) <= width {
			return l
		}
	}
	l := join(head, task, streams, 0)
	if len(streams) > 0 {
		l = join(head, "", streams[:1], len(streams)-1)
	}
	return l[:max(width-3, 0)] + "..."
}

func (p *Progress) print() {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.line()
	if p.redraws() {
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
