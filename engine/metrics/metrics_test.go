package metrics

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

func histOf(n int, ns int64) *hdrhistogram.Histogram {
	h := newHist()
	_ = h.RecordValues(ns, int64(n))
	return h
}

func row(scenario, op string, clients int, count, errs int64) results.Row {
	return results.Row{Scenario: scenario, Backend: "sqlite", Scale: "xs", Clients: clients, Op: op, Count: count, Errors: errs}
}

// point is what a gathered point reports.
type point struct{ calls, errors, late, dropped, histCount float64 }

// gather scrapes e and returns its points by "scenario clients op" and
// its unlabelled gauges by name.
func gather(t *testing.T, e *Exporter) (map[string]point, map[string]float64, map[string]string) {
	t.Helper()
	mfs, err := e.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	points, gauges, tasks := map[string]point{}, map[string]float64{}, map[string]string{}
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			l := map[string]string{}
			for _, lp := range m.Label {
				l[lp.GetName()] = lp.GetValue()
			}
			if _, ok := l["scenario"]; !ok {
				if v, ok := l[labelTask]; ok {
					tasks[mf.GetName()] = v
				}
				gauges[mf.GetName()] = m.GetGauge().GetValue()
				continue
			}
			k := fmt.Sprintf("%s %s %s", l["scenario"], l["clients"], l["op"])
			p := points[k]
			switch mf.GetName() {
			case Calls:
				p.calls = m.GetCounter().GetValue()
			case Errors:
				p.errors = m.GetCounter().GetValue()
			case Late:
				p.late = m.GetCounter().GetValue()
			case Dropped:
				p.dropped = m.GetCounter().GetValue()
			case Latency:
				p.histCount = float64(m.GetHistogram().GetSampleCount())
			}
			points[k] = p
		}
	}
	return points, gauges, tasks
}

// TestExporterCounts: reps add up, a point's merged Hist is not counted
// again after its reps', windows count as they come and the final row
// adds only what they missed, open-loop rows bring late and dropped.
func TestExporterCounts(t *testing.T) {
	tests := []struct {
		name string
		recs []results.Record
		want map[string]point
	}{{
		name: "closed loop, two reps",
		recs: func() []results.Record {
			r1, r2 := row("lookup", "read", 2, 10, 1), row("lookup", "read", 2, 20, 0)
			h1, h2 := histOf(10, 5000), histOf(20, 7000)
			return []results.Record{
				results.Raw(r1), results.RepHist{Row: r1, Interval: results.Interval{Hist: h1}},
				results.Raw(r2), results.RepHist{Row: r2, Interval: results.Interval{Hist: h2}},
				results.Timing(results.Median([]results.Row{r1, r2})),
				results.Hist{Row: results.Median([]results.Row{r1, r2}), Intervals: []results.Interval{{Hist: h1}, {Hist: h2}}},
			}
		}(),
		want: map[string]point{"lookup 2 read": {calls: 30, errors: 1, histCount: 30}},
	}, {
		name: "open loop with windows",
		recs: func() []results.Record {
			w1 := results.WindowRow{Row: row("soak", "read@50", 4, 5, 0), Late: 1, Hist: histOf(5, 1e6)}
			w2 := results.WindowRow{Row: row("soak", "read@50", 4, 7, 1), Window: 1, Late: 2, Hist: histOf(7, 2e6)}
			final := row("soak", "read@50", 4, 13, 1)
			return []results.Record{w1, w2, results.Raw(final), results.Timing(final),
				results.Hist{Row: final, Intervals: []results.Interval{{Hist: w1.Hist}, {Hist: w2.Hist}}},
				results.OpenLoopRow{Row: final, Rate: 50, Late: 4, Dropped: 2}}
		}(),
		want: map[string]point{"soak 4 read@50": {calls: 13, errors: 1, late: 4, dropped: 2, histCount: 12}},
	}, {
		name: "timed without windows, and a cold call",
		recs: func() []results.Record {
			final, cold := row("sustained", "read", 1, 40, 0), row("restart", "cold_q1", 1, 1, 0)
			return []results.Record{results.Raw(final), results.Timing(final),
				results.Hist{Row: final, Intervals: []results.Interval{{Hist: histOf(40, 3000)}}},
				results.Raw(cold), results.Timing(cold), results.HistOf(cold, time.Now(), 3*time.Millisecond)}
		}(),
		want: map[string]point{"sustained 1 read": {calls: 40, histCount: 40}, "restart 1 cold_q1": {calls: 1, histCount: 1}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New()
			for _, r := range tt.recs {
				if err := e.Emit(r); err != nil {
					t.Fatal(err)
				}
			}
			got, _, _ := gather(t, e)
			if len(got) != len(tt.want) {
				t.Fatalf("points %v, want %v", got, tt.want)
			}
			for k, w := range tt.want {
				if got[k] != w {
					t.Errorf("%s: %+v, want %+v", k, got[k], w)
				}
			}
			if len(e.open) != 0 {
				t.Errorf("%d points still open after their last row", len(e.open))
			}
		})
	}
}

// TestExporterProgress: the run's and the running task's gauges follow
// the runner's calls, and the clock stops when the run ends.
func TestExporterProgress(t *testing.T) {
	e := New()
	clock := time.Unix(1000, 0)
	e.now = func() time.Time { return clock }
	e.Planned(3, 10*time.Second)
	e.Skip(2 * time.Second)
	e.Begin("xs/sqlite lookup clients 1", 4*time.Second, func() (int64, int64) { return 42, 1 })
	clock = clock.Add(time.Second)
	_, g, tasks := gather(t, e)
	want := map[string]float64{Running: 1, Elapsed: 1, Estimate: 10, EstimateDone: 2, Remaining: 7, Points: 3, PointsDone: 0,
		Task: 1, TaskElapsed: 1, TaskEstimate: 4, TaskCalls: 42, TaskErrors: 1}
	for k, v := range want {
		if g[k] != v {
			t.Errorf("during the task: %s = %g, want %g", k, g[k], v)
		}
	}
	if tasks[Task] != "xs/sqlite lookup clients 1" {
		t.Errorf("task %q", tasks[Task])
	}
	e.End()
	e.PointDone()
	clock = clock.Add(time.Second)
	e.Finish()
	clock = clock.Add(time.Minute)
	_, g, _ = gather(t, e)
	want = map[string]float64{Running: 0, Elapsed: 2, EstimateDone: 6, Remaining: 4, PointsDone: 1}
	for k, v := range want {
		if g[k] != v {
			t.Errorf("after the run: %s = %g, want %g", k, g[k], v)
		}
	}
	if _, ok := g[Task]; ok {
		t.Errorf("a task is reported after the run")
	}
}

func TestListen(t *testing.T) {
	for _, addr := range []string{":0", "0.0.0.0:0", "192.0.2.1:0", "example.com:0", "[::]:0", "nohost"} {
		if l, err := Listen(addr, false); err == nil {
			l.Close()
			t.Errorf("Listen(%q) accepted a non-loopback address", addr)
		}
	}
	l, err := Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := Listen(l.Addr().String(), false); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("a port in use: %v, want address already in use", err)
	}
	if l6, err := Listen("[::1]:0", false); err == nil {
		l6.Close()
	} else if !strings.Contains(err.Error(), "assign") {
		t.Errorf("[::1]: %v", err) // a machine without IPv6 cannot assign it
	}
}

// TestServe: a scraper that reads text gets the classic buckets, one that
// negotiates protobuf gets the native spans too.
func TestServe(t *testing.T) {
	e := New()
	r := row("lookup", "read", 1, 3, 0)
	_ = e.Emit(results.Raw(r))
	_ = e.Emit(results.RepHist{Row: r, Interval: results.Interval{Hist: histOf(3, 1_500_000)}})
	l, err := Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	srv := e.Serve(l)
	defer srv.Close()
	url := "http://" + l.Addr().String() + Path

	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`mentat_spec_calls_total{backend="sqlite",clients="1",op="read",scale="xs",scenario="lookup"} 3`,
		`mentat_spec_call_duration_seconds_bucket{backend="sqlite",clients="1",op="read",scale="xs",scenario="lookup",le="0.001"} 0`,
		`mentat_spec_call_duration_seconds_bucket{backend="sqlite",clients="1",op="read",scale="xs",scenario="lookup",le="0.002"} 3`,
		`mentat_spec_run_running 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("text exposition lacks %s:\n%s", want, body)
		}
	}

	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", `application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited`)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	dec := expfmt.NewDecoder(resp.Body, expfmt.ResponseFormat(resp.Header))
	found := false
	for {
		var mf dto.MetricFamily
		if err := dec.Decode(&mf); err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		if mf.GetName() == Latency {
			h := mf.Metric[0].GetHistogram()
			found = h.GetSchema() == NativeSchema && len(h.PositiveSpan) == 1 && len(h.Bucket) == len(ClassicBounds)
		}
	}
	if !found {
		t.Errorf("protobuf exposition has no native histogram with classic buckets beside it")
	}
}
