package compare

import (
	"math"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

func TestNoiseDiffers(t *testing.T) {
	row := func(other, steal, mhz float64) results.NoiseRow {
		return results.NoiseRow{Scenario: "a", Backend: "b", Scale: "s", Seconds: 1, CPUs: 2, Load1: 1, OtherPct: other, StealPct: steal, MHz: mhz}
	}
	sum := func(rs ...results.NoiseRow) results.Noise { return results.SummarizeNoise(rs, nil) }
	for _, tt := range []struct {
		name     string
		old, new results.Noise
		want     string
	}{
		{"quiet alike", sum(row(2, 0, 2400)), sum(row(5, 0, 2400)), ""},
		{"others busier", sum(row(2, 0, 0)), sum(row(38, 0, 0)), "other processes took 38% of the CPU during NEW, 2% during OLD"},
		{"stolen", sum(row(2, 0, 0)), sum(row(2, 25, 0)), "the hypervisor stole 25% of the CPU during NEW, 0% during OLD"},
		{"a burst in one rep", sum(row(50, 0, 0), row(50, 0, 0), row(50, 0, 0)), sum(row(45, 0, 0), row(62, 0, 0), row(45, 0, 0)),
			"other processes took up to 62% of the CPU in a rep during NEW, at most 50% during OLD"},
		{"slower clock", sum(row(2, 0, 2400)), sum(row(2, 0, 1200)), "the CPUs ran at 1200 MHz during NEW, 2400 MHz during OLD"},
		{"one side unknown", results.Noise{}, sum(row(38, 0, 0)), ""},
		{"unknown shares", sum(row(math.NaN(), math.NaN(), 0)), sum(row(38, 0, 0)), ""},
	} {
		if got := noiseDiffers(tt.old, tt.new, 10); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
