package results

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestNoiseRoundTrip: noise.csv keeps every figure, an unknown share as
// an empty field.
func TestNoiseRoundTrip(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rows := []NoiseRow{
		{Scenario: "a", Backend: "sqlite", Scale: "xs", Point: 1, Rep: 2, Start: at, Seconds: 1.5, Load1: 2.25, CPUs: 2,
			BusyPct: 80, OwnPct: 50, ServerPct: 10, OtherPct: 20, StealPct: 1.5, MHz: 2400},
		{Scenario: "a", Backend: "sqlite", Scale: "xs", Point: 2, Start: at, Seconds: 0.5, CPUs: 2,
			BusyPct: math.NaN(), OwnPct: math.NaN(), ServerPct: math.NaN(), OtherPct: math.NaN(), StealPct: math.NaN()},
	}
	for _, r := range rows {
		if err := d.Emit(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadNoise(dir)
	if err != nil || len(got) != 2 {
		t.Fatalf("%v %v", got, err)
	}
	if got[0] != rows[0] || !math.IsNaN(got[1].OtherPct) || got[1].Point != 2 {
		t.Errorf("read back %+v, wrote %+v", got, rows)
	}
}

func TestSummarizeNoise(t *testing.T) {
	row := func(other, steal, mhz float64) NoiseRow {
		return NoiseRow{Scenario: "a", Backend: "b", Scale: "s", Seconds: 1, CPUs: 2, Load1: 1, OtherPct: other, StealPct: steal, MHz: mhz}
	}
	sum := func(rs ...NoiseRow) Noise { return SummarizeNoise(rs, nil) }
	// Weighted by length: 3 s at 10% and 1 s at 50% are 20%.
	long := row(10, 0, 0)
	long.Seconds = 3
	if n := sum(long, row(50, 0, 0)); n.OtherPct != 20 || n.MaxOtherPct != 50 {
		t.Errorf("summary %+v, want 20%% other, at most 50%%", n)
	}
	if s := sum(row(2, 0, 2400)).String(); !strings.Contains(s, "other processes 2.0% of the CPU") || !strings.Contains(s, "2400 MHz") {
		t.Errorf("summary in words: %s", s)
	}
}
