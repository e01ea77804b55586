package results

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

func TestHlogRoundTrip(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	row := Row{Scenario: "sustained", Backend: "sqlite", Scale: "xs", Clients: 4, Op: OpRead}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var ivs []Interval
	all := hdrhistogram.New(1, int64(time.Hour), 3)
	for w := 0; w < 3; w++ {
		h := hdrhistogram.New(1, int64(time.Hour), 3)
		for i := 1; i <= 1000; i++ {
			v := int64(i*(w+1)) * int64(time.Microsecond)
			_ = h.RecordValue(v)
			_ = all.RecordValue(v)
		}
		s := start.Add(time.Duration(w) * 10 * time.Second)
		ivs = append(ivs, Interval{Start: s, End: s.Add(10 * time.Second), Hist: h})
	}
	if err := d.Emit(Hist{Row: row, Intervals: ivs}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, HdrDir, "sustained-sqlite-xs-c4-read.hlog")
	got := readHlog(t, path)
	if len(got) != 3 {
		t.Fatalf("%d intervals, want 3", len(got))
	}
	merged := hdrhistogram.New(1, int64(time.Hour), 3)
	for i, h := range got {
		if h.TotalCount() != 1000 {
			t.Errorf("interval %d: %d values", i, h.TotalCount())
		}
		merged.Merge(h)
	}
	for _, p := range []float64{50, 95, 99, 100} {
		if a, b := merged.ValueAtPercentile(p), all.ValueAtPercentile(p); a != b {
			t.Errorf("p%v: read back %d, written %d", p, a, b)
		}
	}
	text, _ := os.ReadFile(path)
	if !strings.Contains(string(text), "#[BaseTime: ") || !strings.Contains(string(text), "#[StartTime: ") {
		t.Errorf("log lacks its start and base times:\n%s", text)
	}
}

func TestTimedFiles(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := Row{Scenario: "sustained", Backend: "sqlite", Scale: "xs", Clients: 2, Op: OpRead}
	for i, tp := range []float64{1000, 900} {
		w := WindowRow{Row: base, Window: i, StartS: float64(i * 10), EndS: float64(i*10 + 10)}
		w.Count, w.Throughput, w.P99Ms = int64(tp*10), tp, float64(i+1)
		if err := d.Emit(w); err != nil {
			t.Fatal(err)
		}
	}
	ol := OpenLoopRow{Row: base, Rate: 500, Late: 3, Dropped: 1}
	ol.Count, ol.Throughput = 4999, 499.9
	if err := d.Emit(ol); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := d.Emit(Sample{Sampler: "vmstat", Columns: []string{"ts", "line"}, Values: []string{"t" + string(rune('0'+i)), "a, b"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Emit(Sample{Sampler: "../x", Columns: []string{"ts"}, Values: []string{"1"}}); err == nil {
		t.Error("a sampler name with a path was accepted")
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		WindowsFile:  WindowsHeader + "\nsustained,sqlite,xs,2,read,0,0,10,10000,0,0,1,0,1000,0,0\nsustained,sqlite,xs,2,read,1,10,20,9000,0,0,2,0,900,0,0\n",
		OpenLoopFile: OpenLoopHeader + "\nsustained,sqlite,xs,2,read,500,4999,499.9,3,1,0\n",
		filepath.Join(LogsDir, "sampler-vmstat.csv"): "ts,line\nt0,\"a, b\"\nt1,\"a, b\"\n",
	}
	for name, w := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != w {
			t.Errorf("%s:\n%s\nwant\n%s (%v)", name, b, w, err)
		}
	}
	ws, err := ReadWindows(dir)
	if err != nil || len(ws) != 2 || ws[1].Window != 1 || ws[1].Throughput != 900 || ws[1].P99Ms != 2 || ws[1].Key() != base.Key() {
		t.Errorf("windows read back: %+v (%v)", ws, err)
	}
	ols, err := ReadOpenLoop(dir)
	if err != nil || len(ols) != 1 || ols[0].Rate != 500 || ols[0].Late != 3 || ols[0].Dropped != 1 || ols[0].Count != 4999 {
		t.Errorf("open-loop rows read back: %+v (%v)", ols, err)
	}
}

// BenchmarkEmitHist is the cost of a point's HDR log: a histogram of
// 10,000 latencies (a rep) written as one interval, or three.
func BenchmarkEmitHist(b *testing.B) {
	d, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	h := hdrhistogram.New(1, int64(time.Hour), 3)
	for i := 1; i <= 10000; i++ {
		_ = h.RecordValue(int64(i) * 997)
	}
	row := Row{Scenario: "s", Backend: "sqlite", Scale: "xs", Clients: 1, Op: OpRead}
	start := time.Now()
	for _, n := range []int{1, 3} {
		b.Run(strconv.Itoa(n)+"-intervals", func(b *testing.B) {
			var ivs []Interval
			for i := 0; i < n; i++ {
				ivs = append(ivs, Interval{Start: start, End: start.Add(time.Second), Hist: h})
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := d.Emit(Hist{Row: row, Intervals: ivs}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// readHlog is ReadHlog failing the test on an error.
func readHlog(t *testing.T, path string) []*hdrhistogram.Histogram {
	t.Helper()
	hs, err := ReadHlog(path)
	if err != nil {
		t.Fatal(err)
	}
	return hs
}
