package main

import (
	"encoding/csv"
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

	"github.com/mentat-spec/mentat-spec/engine/metrics"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

const promScript = "../../scripts/prometheus.sh"

// TestMetricsPrometheus: two real Prometheus servers (Debian's package,
// scripts/prometheus.sh), one negotiating native histograms and one
// reading text, scrape a running apply every 0.5 s. Read back through
// their HTTP API once the run has ended, each point's calls equal its
// timings.csv count (one rep), and the p99 Prometheus computes from the
// scraped histogram lies within one bucket of the row's p99. Outside CI
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
		code := run([]string{"apply", "testdata/metrics.hcl", "-o", res, "-var", "data_dir=" + filepath.Join(tmp, "data"),
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

	timings := readTimingsCSV(t, filepath.Join(res, "timings.csv"))
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
			sel := fmt.Sprintf(`{scenario=%q,backend=%q,scale=%q,clients="%d",op=%q}`, row.Scenario, row.Backend, row.Scale, row.Clients, row.Op)
			if got := promValue(t, srv, metrics.Calls+sel, at[mode]); got != float64(row.Count) {
				t.Errorf("%s: %s%s = %g, timings.csv's count %d", mode, metrics.Calls, sel, got, row.Count)
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
			want := row.P99Ms / 1e3
			bucket := classicBucket
			if mode == "native" {
				bucket = nativeBucket
			}
			if d := bucket(p99) - bucket(want); d < -1 || d > 1 {
				t.Errorf("%s: %s = %g s in bucket %d, the row's p99 %g s in bucket %d: more than one bucket apart",
					mode, q, p99, bucket(p99), want, bucket(want))
			} else {
				t.Logf("%s %s clients=%d: Prometheus p99 %.6f ms, the row's %.6f ms (buckets %d and %d)", mode, row.Scenario, row.Clients, p99*1e3, row.P99Ms, bucket(p99), bucket(want))
			}
		}
	}
}

// readTimingsCSV reads the columns of timings.csv the test compares.
func readTimingsCSV(t *testing.T, path string) []results.Row {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: %v", path, err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var out []results.Row
	for _, r := range recs[1:] {
		clients, err1 := strconv.Atoi(r[col["clients"]])
		count, err2 := strconv.ParseInt(r[col["count"]], 10, 64)
		p99, err3 := strconv.ParseFloat(r[col["p99_ms"]], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("%s: row %v", path, r)
		}
		out = append(out, results.Row{Scenario: r[col["scenario"]], Backend: r[col["backend"]], Scale: r[col["scale"]],
			Clients: clients, Op: r[col["op"]], Count: count, P99Ms: p99})
	}
	return out
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
