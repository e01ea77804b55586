package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/measure"
)

func TestPrecisionRoundTrip(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	raw := Row{Scenario: "point_lookup", Backend: "sqlite", Scale: "xs", Rep: 2}
	res := measure.Result{Op: "read", Clients: 4, Count: 1234, P50: 1500 * time.Microsecond, P99: 9 * time.Millisecond,
		P50RelCI: 0.01234, P99RelCI: math.Inf(1), StoppedBy: measure.StopPrecision,
		ClientCPU: 1234 * 2500 * time.Nanosecond}
	want := PrecisionOf(raw, res)
	if err := d.AppendPrecision(want); err != nil {
		t.Fatal(err)
	}
	if err := d.AppendPrecision(PrecisionRow{Scenario: "x", Backend: "", Scale: "xs", Op: "read"}); err == nil {
		t.Error("a row without a backend was written")
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, PrecisionFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != PrecisionHeader+"\npoint_lookup,sqlite,xs,4,read,2,1234,1.5,0.0123,9,,precision,2.50\n" {
		t.Errorf("precision.csv:\n%s", got)
	}
	if want.ClientCPUUs != 2.5 {
		t.Errorf("client CPU per call %v µs, want 2.5", want.ClientCPUUs)
	}
	// A directory whose precision.csv is of another format is refused.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, PrecisionFile), []byte("a,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(other); err == nil || !strings.Contains(err.Error(), "precision.csv") {
		t.Errorf("open with a foreign precision.csv: %v", err)
	}
}

func TestClientCPUPerCall(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  []measure.Result
		want float64
	}{
		{"none", nil, 0},
		{"unknown", []measure.Result{{Count: 10}}, 0},
		{"no calls", []measure.Result{{ClientCPU: time.Millisecond}}, 0},
		{"one stream", []measure.Result{{Count: 90, Errors: 10, ClientCPU: time.Millisecond}}, 10},
		{"every stream's calls", []measure.Result{{Count: 150, ClientCPU: time.Millisecond}, {Count: 50, ClientCPU: time.Millisecond}}, 5},
	} {
		if got := ClientCPUPerCall(tc.res); got != tc.want {
			t.Errorf("%s: %v µs, want %v", tc.name, got, tc.want)
		}
	}
}
