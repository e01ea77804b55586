// Package metrics serves a running apply's results in the Prometheus
// exposition format: per point (scenario, backend, scale, clients, op)
// its calls, errors, late and dropped calls and its latency histogram,
// derived exactly from the HDR histograms the kinds emit (hist.go says
// how), and the run's progress. An Exporter is a results.Sink and follows
// the runner's tasks (runner.Watcher); Serve puts it on a listener.
//
// Counts are totals over every rep and window of a point: with reps = 1
// the calls of a point equal its timings.csv count (the median over
// reps) once it ends; with more reps they are the sum of raw.csv's.
package metrics

import (
	"strconv"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The metric names, one place; Names lists them for the dashboard's test.
const (
	Calls          = "mentat_spec_calls_total"
	Errors         = "mentat_spec_errors_total"
	Late           = "mentat_spec_late_calls_total"
	Dropped        = "mentat_spec_dropped_calls_total"
	Latency        = "mentat_spec_call_duration_seconds"
	Running        = "mentat_spec_run_running"
	Elapsed        = "mentat_spec_run_elapsed_seconds"
	Estimate       = "mentat_spec_run_estimate_seconds"
	EstimateDone   = "mentat_spec_run_estimate_done_seconds"
	Remaining      = "mentat_spec_run_remaining_seconds"
	Points         = "mentat_spec_run_points"
	PointsDone     = "mentat_spec_run_points_done"
	Task           = "mentat_spec_task_info"
	TaskElapsed    = "mentat_spec_task_elapsed_seconds"
	TaskEstimate   = "mentat_spec_task_estimate_seconds"
	TaskCalls      = "mentat_spec_task_calls"
	TaskErrors     = "mentat_spec_task_errors"
	labelTask      = "task"
	labelsPerPoint = 5
)

// pointLabels are the labels of every per-point metric.
var pointLabels = [labelsPerPoint]string{"scenario", "backend", "scale", "clients", "op"}

// Names are every metric the exporter serves (histograms by their base
// name: Prometheus adds _bucket, _sum and _count for classic ones).
var Names = []string{Calls, Errors, Late, Dropped, Latency, Running, Elapsed, Estimate, EstimateDone,
	Remaining, Points, PointsDone, Task, TaskElapsed, TaskEstimate, TaskCalls, TaskErrors}

// Exporter collects a run's metrics. Safe for concurrent use.
type Exporter struct {
	mu     sync.Mutex
	now    func() time.Time
	series map[results.Key]*series
	// open are what windows and reps of a running point already counted,
	// so that the point's final rows add only the rest.
	open map[results.Key]*counted
	run  runState
	reg  *prometheus.Registry
}

// series is one point's counts.
type series struct {
	labels                       [labelsPerPoint]string
	calls, errors, late, dropped int64
	latency                      latency
	// pairs are the labels as scrapes carry them; hist the latency as the
	// last scrape did, made again only after a change (most points have
	// ended: a scrape then costs little).
	pairs []*dto.LabelPair
	hist  *dto.Histogram
}

// histogram is s's latency for a scrape.
func (s *series) histogram() *dto.Histogram {
	if s.hist == nil {
		s.hist = s.latency.proto()
	}
	return s.hist
}

// counted is what a running point's windows and reps already added.
type counted struct {
	calls, errors, late int64
	hist                bool // its histogram came rep by rep or window by window
}

// runState is the run's progress, as the runner reports it.
type runState struct {
	started, ended   time.Time
	points, done     int
	estimate, estRan time.Duration
	task             string // "" between tasks
	taskStart        time.Time
	taskEst          time.Duration
	count            func() (int64, int64)
}

// New returns an exporter whose run started now.
func New() *Exporter {
	e := &Exporter{now: time.Now, series: map[results.Key]*series{}, open: map[results.Key]*counted{}}
	e.run.started = e.now()
	e.reg = prometheus.NewRegistry()
	e.reg.MustRegister(collector{e})
	return e
}

// Emit implements results.Sink. It never fails: a metrics endpoint must
// not stop a run.
func (e *Exporter) Emit(rec results.Record) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch r := rec.(type) {
	case results.Raw:
		s, o := e.point(results.Row(r)), e.open[results.Row(r).Key()]
		if o != nil {
			// Windows counted most of it already.
			s.calls += max(r.Count-o.calls, 0)
			s.errors += max(r.Errors-o.errors, 0)
			o.calls, o.errors = 0, 0
		} else {
			s.calls += r.Count
			s.errors += r.Errors
		}
	case results.RepHist:
		s := e.point(r.Row)
		s.addLatency(r.Interval.Hist)
		e.opened(r.Row.Key()).hist = true
	case results.WindowRow:
		s, o := e.point(r.Row), e.opened(r.Row.Key())
		s.calls += r.Count
		s.errors += r.Errors
		s.late += r.Late
		o.calls += r.Count
		o.errors += r.Errors
		o.late += r.Late
		if r.Hist != nil {
			s.addLatency(r.Hist)
			o.hist = true
		}
	case results.Hist:
		k := r.Row.Key()
		s, o := e.point(r.Row), e.open[k]
		if o == nil || !o.hist {
			for _, iv := range r.Intervals {
				s.addLatency(iv.Hist)
			}
		}
		if o != nil {
			if o.late == 0 {
				delete(e.open, k)
			} else {
				o.hist = false // the late calls wait for the open-loop row
			}
		}
	case results.OpenLoopRow:
		k := r.Row.Key()
		s := e.point(r.Row)
		var seen int64
		if o := e.open[k]; o != nil {
			seen = o.late
			delete(e.open, k)
		}
		s.late += max(r.Late-seen, 0)
		s.dropped += r.Dropped
	}
	return nil
}

func (s *series) addLatency(h *hdrhistogram.Histogram) {
	s.latency.add(h)
	s.hist = nil
}

// point is the series of row's point, made on first use.
func (e *Exporter) point(row results.Row) *series {
	k := row.Key()
	s := e.series[k]
	if s == nil {
		s = &series{labels: [labelsPerPoint]string{row.Scenario, row.Backend, row.Scale, strconv.Itoa(row.Clients), row.Op}}
		s.pairs = prometheus.MakeLabelPairs(descCalls, s.labels[:])
		e.series[k] = s
	}
	return s
}

func (e *Exporter) opened(k results.Key) *counted {
	o := e.open[k]
	if o == nil {
		o = &counted{}
		e.open[k] = o
	}
	return o
}

// Planned sets what the run measures; the run's clock starts here.
func (e *Exporter) Planned(points int, est time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.run.points, e.run.estimate, e.run.started = points, est, e.now()
}

// Begin starts a task.
func (e *Exporter) Begin(task string, est time.Duration, count func() (n, errs int64)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.run.task, e.run.taskStart, e.run.taskEst, e.run.count = task, e.now(), est, count
}

// End finishes the running task.
func (e *Exporter) End() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.run.task != "" {
		e.run.estRan += e.run.taskEst
	}
	e.run.task, e.run.count = "", nil
}

// Skip counts an estimated task as done.
func (e *Exporter) Skip(est time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.run.estRan += est
}

// PointDone counts a finished point.
func (e *Exporter) PointDone() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.run.done++
}

// Finish marks the run ended: its clock stops and Running turns 0.
func (e *Exporter) Finish() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.run.ended.IsZero() {
		e.run.ended = e.now()
	}
	e.run.task, e.run.count = "", nil
}

// Gatherer is the exporter's registry, for a handler or a test.
func (e *Exporter) Gatherer() prometheus.Gatherer { return e.reg }

// collector turns the exporter's state into metrics at each scrape.
type collector struct{ e *Exporter }

var (
	descCalls = prometheus.NewDesc(Calls, "Successful calls of a point (the latency samples; timings.csv's count is their median over reps).", pointLabels[:], nil)
	descErrs  = prometheus.NewDesc(Errors, "Failed calls of a point.", pointLabels[:], nil)
	descLate  = prometheus.NewDesc(Late, "Calls of a point that started later than the late bound (timed points).", pointLabels[:], nil)
	descDrop  = prometheus.NewDesc(Dropped, "Calls an open-loop point offered that never started.", pointLabels[:], nil)
	descLat   = prometheus.NewDesc(Latency, "Latency of a point's successful calls, from the run's HDR histograms (each HDR bucket counted at its highest equivalent value).", pointLabels[:], nil)

	descRunning   = prometheus.NewDesc(Running, "1 while the run measures, 0 once it has ended.", nil, nil)
	descElapsed   = prometheus.NewDesc(Elapsed, "Seconds since the run started (until it ended).", nil, nil)
	descEstimate  = prometheus.NewDesc(Estimate, "The plan's estimate of the whole run, seconds.", nil, nil)
	descEstDone   = prometheus.NewDesc(EstimateDone, "The plan's estimate of the tasks finished or skipped, seconds: the run's progress as a share of Estimate.", nil, nil)
	descRemaining = prometheus.NewDesc(Remaining, "The plan's estimate of what is left, seconds (the running task counted by its elapsed time).", nil, nil)
	descPoints    = prometheus.NewDesc(Points, "Points the run measures.", nil, nil)
	descDone      = prometheus.NewDesc(PointsDone, "Points measured (or given up) so far.", nil, nil)
	descTask      = prometheus.NewDesc(Task, "The running task (a load, a point or a rep), as the progress line names it; absent between tasks.", []string{labelTask}, nil)
	descTaskEl    = prometheus.NewDesc(TaskElapsed, "Seconds the running task has taken.", nil, nil)
	descTaskEst   = prometheus.NewDesc(TaskEstimate, "The plan's estimate of the running task, seconds.", nil, nil)
	descTaskCalls = prometheus.NewDesc(TaskCalls, "Calls (or datoms loaded) of the running task so far, every client and worker included.", nil, nil)
	descTaskErrs  = prometheus.NewDesc(TaskErrors, "Errors of the running task so far.", nil, nil)
)

func (collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCalls, descErrs, descLate, descDrop, descLat, descRunning, descElapsed,
		descEstimate, descEstDone, descRemaining, descPoints, descDone, descTask, descTaskEl, descTaskEst, descTaskCalls, descTaskErrs} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	e := c.e
	e.mu.Lock()
	now := e.now()
	rs := e.run
	type snap struct {
		pairs                        []*dto.LabelPair
		calls, errors, late, dropped int64
		hist                         *dto.Histogram
	}
	snaps := make([]snap, 0, len(e.series))
	for _, s := range e.series {
		snaps = append(snaps, snap{s.pairs, s.calls, s.errors, s.late, s.dropped, s.histogram()})
	}
	e.mu.Unlock()

	// Written from the series' own label pairs and cached histograms,
	// which no one changes once handed out.
	for _, s := range snaps {
		ch <- pointMetric{desc: descCalls, labels: s.pairs, counter: float64(s.calls)}
		ch <- pointMetric{desc: descErrs, labels: s.pairs, counter: float64(s.errors)}
		ch <- pointMetric{desc: descLate, labels: s.pairs, counter: float64(s.late)}
		ch <- pointMetric{desc: descDrop, labels: s.pairs, counter: float64(s.dropped)}
		ch <- pointMetric{desc: descLat, labels: s.pairs, hist: s.hist}
	}
	end := now
	running := 1.0
	if !rs.ended.IsZero() {
		end, running = rs.ended, 0
	}
	remaining := rs.estimate - rs.estRan
	gauge := func(d *prometheus.Desc, v float64, lv ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, lv...)
	}
	if rs.task != "" {
		te := now.Sub(rs.taskStart)
		remaining -= min(te, rs.taskEst)
		gauge(descTask, 1, rs.task)
		gauge(descTaskEl, te.Seconds())
		gauge(descTaskEst, rs.taskEst.Seconds())
		if rs.count != nil {
			n, errs := rs.count()
			gauge(descTaskCalls, float64(n))
			gauge(descTaskErrs, float64(errs))
		}
	}
	gauge(descRunning, running)
	gauge(descElapsed, end.Sub(rs.started).Seconds())
	gauge(descEstimate, rs.estimate.Seconds())
	gauge(descEstDone, min(rs.estRan, rs.estimate).Seconds())
	gauge(descRemaining, max(remaining, 0).Seconds())
	gauge(descPoints, float64(rs.points))
	gauge(descDone, float64(rs.done))
}

// pointMetric is one metric of a point: a counter, or its latency
// histogram with both its classic buckets and its native spans.
type pointMetric struct {
	desc    *prometheus.Desc
	labels  []*dto.LabelPair
	counter float64
	hist    *dto.Histogram
}

func (m pointMetric) Desc() *prometheus.Desc { return m.desc }

func (m pointMetric) Write(out *dto.Metric) error {
	out.Label = m.labels
	if m.hist != nil {
		out.Histogram = m.hist
	} else {
		out.Counter = &dto.Counter{Value: &m.counter}
	}
	return nil
}
