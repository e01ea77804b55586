package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mentat-spec/mentat-spec/engine/metrics"
)

const promScript = "../../scripts/prometheus.sh"

// TestMetricsPrometheus: two real Prometheus servers (Debian's package,
// scripts/prometheus.sh), one negotiating native histograms and one
// reading text, scrape a running apply every 0.5 s. Read back through
// their HTTP API once the run has ended, each point's calls equal its
// timings.csv count (one rep), and the p99 Prometheus computes from the
// scraped histogram lies within one bucket of the row's p99. The spec is
// apply.hcl's lookup at 1 and 2 clients and a sustained point, each of
// about a second with one rep (metrics.hcl, metrics_override.hcl). Outside CI
// a missing prometheus skips the test; in CI it fails.
func TestMetricsPrometheus(t *testing.T) {
	if _, err := exec.LookPath("prometheus"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no prometheus on PATH in CI: scripts/prometheus.sh install installs it (apt-get install prometheus)")
		}
		t.Skip("no prometheus on PATH (install it with: apt-get install prometheus); CI never skips this test")
	}
	tmp := t.TempDir()
	target := freeLoopback(t)
	servers := map[string]string{}
	for _, mode := range []string{"native", "classic"} {
		dir := filepath.Join(tmp, "prometheus-"+mode)
		cmd := exec.Command(promScript, "up", dir, target)
		cmd.Env = append(os.Environ(), "MENTAT_SPEC_PROM_NATIVE="+map[string]string{"native": "1", "classic": "0"}[mode])
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("prometheus.sh up: %v\n%s", err, exitStderr(err))
		}
		t.Cleanup(func() {
			if out, err := exec.Command(promScript, "down", dir).CombinedOutput(); err != nil {
				t.Errorf("prometheus.sh down: %v\n%s", err, out)
			}
		})
		servers[mode] = strings.TrimSpace(string(out))
	}

	// Prometheus hands new targets to its scrapers a few seconds after it
	// starts: the run starts once both have tried the endpoint (up = 0).
	deadline := time.Now().Add(30 * time.Second)
	for mode, srv := range servers {
		for len(promQuery(t, srv, "up", "")) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%s Prometheus never tried to scrape %s", mode, target)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	res := filepath.Join(tmp, "results")
	done := make(chan string, 1)
	go func() {
		var stdout, stderr strings.Builder
		code := run([]string{"apply", "testdata/apply.hcl", "testdata/metrics.hcl", "testdata/metrics_override.hcl", "-o", res, "-var", "data_dir=" + filepath.Join(tmp, "data"),
			"-metrics-listen", target, "-metrics-linger", "4s"}, &stdout, &stderr)
		if code != exitOK {
			done <- fmt.Sprintf("apply exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			return
		}
		done <- ""
	}()

	// The last scrape of each server after the run ended: every query is
	// evaluated at its time, before the series go stale.
	at := map[string]string{}
	deadline = time.Now().Add(40 * time.Second)
	for mode, srv := range servers {
		for at[mode] == "" {
			if time.Now().After(deadline) {
				t.Fatalf("%s Prometheus never scraped the ended run", mode)
			}
			if r := promQuery(t, srv, "timestamp("+metrics.Running+" == 0)", ""); len(r) == 1 {
				at[mode] = strconv.FormatFloat(r[0].Value.value(t), 'f', 3, 64)
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if msg := <-done; msg != "" {
		t.Fatal(msg)
	}

	timings := readCSV(t, filepath.Join(res, "timings.csv"))
	if len(timings) != 3 {
		t.Fatalf("timings.csv has %d rows, want 3 (lookup at 1 and 2 clients, soak)", len(timings))
	}
	for mode, srv := range servers {
		if v := promValue(t, srv, "min_over_time("+metrics.PointsDone+"[1m])", at[mode]); v >= 3 {
			t.Errorf("%s: no scrape while the run measured (points done %g at the first)", mode, v)
		}
		t.Logf("%s: %g of %g scrapes succeeded, the slowest took %.3f s", mode, promValue(t, srv, "sum_over_time(up[1m])", at[mode]),
			promValue(t, srv, "count_over_time(up[1m])", at[mode]), promValue(t, srv, "max_over_time(scrape_duration_seconds[1m])", at[mode]))
		checkDashboard(t, mode, srv, at[mode])
		for _, g := range []string{metrics.Points, metrics.PointsDone} {
			if v := promValue(t, srv, g, at[mode]); v != 3 {
				t.Errorf("%s: %s = %g, want 3", mode, g, v)
			}
		}
		for _, row := range timings {
			sel := pointSelector(row)
			if got, want := promValue(t, srv, metrics.Calls+sel, at[mode]), row["count"]; strconv.FormatFloat(got, 'f', -1, 64) != want {
				t.Errorf("%s: %s%s = %g, timings.csv's count %s", mode, metrics.Calls, sel, got, want)
			}
			var q string
			if mode == "native" {
				q = fmt.Sprintf("histogram_quantile(0.99, %s%s)", metrics.Latency, sel)
				if r := promQuery(t, srv, metrics.Latency+sel, at[mode]); len(r) != 1 || r[0].Histogram == nil {
					t.Fatalf("native: %s%s is not a native histogram: %+v", metrics.Latency, sel, r)
				}
			} else {
				q = fmt.Sprintf("histogram_quantile(0.99, %s_bucket%s)", metrics.Latency, sel)
			}
			p99 := promValue(t, srv, q, at[mode])
			want := parseFloat(t, row["p99_ms"]) / 1e3
			bucket := classicBucket
			if mode == "native" {
				bucket = nativeBucket
			}
			if d := bucket(p99) - bucket(want); d < -1 || d > 1 {
				t.Errorf("%s: %s = %g s in bucket %d, the row's p99 %g s in bucket %d: more than one bucket apart",
					mode, q, p99, bucket(p99), want, bucket(want))
			} else {
				t.Logf("%s %s clients=%s: Prometheus p99 %.6f ms, the row's %.6f ms (buckets %d and %d)", mode, row["scenario"], row["clients"], p99*1e3, want*1e3, bucket(p99), bucket(want))
			}
		}
	}
}

// pointSelector selects a timings.csv row's point.
func pointSelector(row map[string]string) string {
	return fmt.Sprintf(`{scenario=%q,backend=%q,scale=%q,clients=%q,op=%q}`, row["scenario"], row["backend"], row["scale"], row["clients"], row["op"])
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkDashboard runs every query of the Grafana dashboard against srv
// at the given time: each must parse and, but for the running task's
// (none once the run has ended), return something.
func checkDashboard(t *testing.T, mode, srv, at string) {
	t.Helper()
	b, err := os.ReadFile("../../examples/grafana/mentat-spec.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	vars := strings.NewReplacer("$__rate_interval", "1m", "$scenario", ".*", "$backend", ".*", "$scale", ".*")
	for _, p := range d.Panels {
		found := false
		for _, tg := range p.Targets {
			found = found || len(promQuery(t, srv, vars.Replace(tg.Expr), at)) > 0
		}
		// A panel's native and classic queries: one of them answers.
		if !found && !strings.Contains(p.Title, "task") {
			t.Errorf("%s: the dashboard's panel %q shows nothing", mode, p.Title)
		}
	}
}

// classicBucket is the index of the classic bucket holding v seconds.
func classicBucket(v float64) int {
	return sort.SearchFloat64s(metrics.ClassicBounds, v*(1-1e-9))
}

// nativeBucket is the index of the native bucket holding v seconds.
func nativeBucket(v float64) int {
	return int(math.Ceil(math.Log2(v)*(1<<metrics.NativeSchema) - 1e-9))
}

// TestMetricsListenRefused: a port in use and an address other hosts
// reach are usage errors (exit 2) before the run creates anything.
func TestMetricsListenRefused(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tt := range []struct{ addr, want string }{
		{busy.Addr().String(), "address already in use"},
		{"0.0.0.0:9464", "not a loopback address"},
		{"9464", "want HOST:PORT"},
	} {
		dir := t.TempDir()
		res := filepath.Join(dir, "results")
		code, _, stderr := runT(t, "apply", "testdata/apply.hcl", "-o", res, "-var", "data_dir="+dir, "-metrics-listen", tt.addr)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("-metrics-listen %s: exit %d, stderr %q; want exit %d and %q", tt.addr, code, stderr, exitUsage, tt.want)
		}
		if _, err := os.Stat(res); err == nil {
			t.Errorf("-metrics-listen %s: the results directory was created", tt.addr)
		}
	}
}

// freeLoopback is a 127.0.0.1 address nothing listens on.
func freeLoopback(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func exitStderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// promSample is one element of an instant query's vector.
type promSample struct {
	Metric    map[string]string `json:"metric"`
	Value     promPair          `json:"value"`
	Histogram json.RawMessage   `json:"histogram"`
}

// promPair is [time, "value"].
type promPair []any

func (p promPair) value(t *testing.T) float64 {
	t.Helper()
	if len(p) != 2 {
		t.Fatalf("sample %v", p)
	}
	s, _ := p[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("sample %v: %v", p, err)
	}
	return v
}

// promQuery runs an instant query (at a time, "" for now) against srv.
func promQuery(t *testing.T, srv, query, at string) []promSample {
	t.Helper()
	v := url.Values{"query": {query}}
	if at != "" {
		v.Set("time", at)
	}
	resp, err := http.Get(srv + "/api/v1/query?" + v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string       `json:"resultType"`
			Result     []promSample `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if body.Status != "success" {
		t.Fatalf("%s: %s", query, body.Error)
	}
	return body.Data.Result
}

// promValue is the one value of a query.
func promValue(t *testing.T, srv, query, at string) float64 {
	t.Helper()
	r := promQuery(t, srv, query, at)
	if len(r) != 1 {
		t.Fatalf("%s at %s: %d samples, want 1: %+v", query, at, len(r), r)
	}
	return r[0].Value.value(t)
}

// TestMetricsWorkers: with worker processes (two, sharing an open-loop
// stream), the endpoint counts every worker's calls, late and dropped
// calls: once the run has ended they equal timings.csv's and
// openloop.csv's. Scraped in the text format, as a scraper without
// native histograms reads it.
func TestMetricsWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	t.Setenv(asCLI, "1")
	dir := t.TempDir()
	target := freeLoopback(t)
	done := make(chan string, 1)
	go func() {
		var stdout, stderr strings.Builder
		code := run([]string{"apply", "../../examples/open-loop.hcl", "testdata/processes_override.hcl", "-var", "rate=[200]", "-var", "duration_s=2",
			"-var", "data_dir=" + filepath.Join(dir, "data"), "-o", filepath.Join(dir, "out"), "-metrics-listen", target, "-metrics-linger", "3s"}, &stdout, &stderr)
		if code != exitOK {
			done <- fmt.Sprintf("apply exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			return
		}
		done <- ""
	}()
	var fams map[string]*dto.MetricFamily
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the run never ended while its endpoint served")
		}
		resp, err := http.Get("http://" + target + metrics.Path)
		if err != nil {
			continue // not listening yet
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err = p.TextToMetricFamilies(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if r := fams[metrics.Running]; r != nil && r.Metric[0].GetGauge().GetValue() == 0 {
			break
		}
	}
	if msg := <-done; msg != "" {
		t.Fatal(msg)
	}
	value := func(name string, row map[string]string) float64 {
		for _, m := range fams[name].GetMetric() {
			match := true
			for _, lp := range m.Label {
				match = match && row[lp.GetName()] == lp.GetValue()
			}
			if match {
				if h := m.GetHistogram(); h != nil {
					return float64(h.GetSampleCount())
				}
				return m.GetCounter().GetValue()
			}
		}
		t.Fatalf("no %s%s", name, pointSelector(row))
		return 0
	}
	ol := readCSV(t, filepath.Join(dir, "out", "openloop.csv"))
	if len(ol) != 1 {
		t.Fatalf("openloop.csv: %v", ol)
	}
	row := ol[0]
	if row["count"] == "0" {
		t.Fatalf("the point made no call: %v", row)
	}
	row["op"] = "read@200"
	for name, want := range map[string]string{metrics.Calls: row["count"], metrics.Latency: row["count"], metrics.Late: row["late"],
		metrics.Dropped: row["dropped"], metrics.Errors: row["errors"]} {
		if got := value(name, row); strconv.FormatFloat(got, 'f', -1, 64) != want {
			t.Errorf("%s%s = %g, openloop.csv says %s", name, pointSelector(row), got, want)
		}
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "out", "logs", "workers.log")); !strings.Contains(string(log), "workers=2") {
		t.Errorf("the point ran without its two workers:\n%s", log)
	}
}
