package datagen

import (
	"math"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
)

func TestZipfFrequencies(t *testing.T) {
	const n, draws = 1000, 400_000
	for _, s := range []float64{0.5, 1, 1.1, 2, 3} {
		z := newZipfSampler(n, s)
		st := draw.NewStream(7, "zipf", "test")
		counts := make([]int, n)
		for id := int64(0); id < draws; id++ {
			k := z.sample(st.IDState(id), 0)
			if k < 0 || k >= n {
				t.Fatalf("s=%g: rank %d out of range", s, k)
			}
			counts[k]++
		}
		ratio := float64(counts[0]) / float64(counts[1])
		if want := math.Pow(2, s); math.Abs(ratio/want-1) > 0.1 {
			t.Errorf("s=%g: rank0/rank1 = %.3f, want about %.3f", s, ratio, want)
		}
		var norm float64
		for k := 1; k <= n; k++ {
			norm += math.Pow(float64(k), -s)
		}
		for k := 0; k < 5; k++ {
			want := draws * math.Pow(float64(k+1), -s) / norm
			if math.Abs(float64(counts[k])/want-1) > 0.1 {
				t.Errorf("s=%g: rank %d drawn %d times, want about %.0f", s, k, counts[k], want)
			}
		}
	}
	// One element: always rank 0.
	z := newZipfSampler(1, 1.1)
	st := draw.NewStream(7, "zipf", "one")
	for id := int64(0); id < 1000; id++ {
		if k := z.sample(st.IDState(id), 0); k != 0 {
			t.Fatalf("n=1: rank %d", k)
		}
	}
}
