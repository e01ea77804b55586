package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestMannWhitneyKnownValues(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		u, p float64
	}{
		// Complete separation of 5 and 5: 2/C(10,5).
		{"separated 5+5", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0, 2.0 / 252},
		{"separated 3+3", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 0.1},
		{"reversed", []float64{6, 7, 8, 9, 10}, []float64{1, 2, 3, 4, 5}, 25, 2.0 / 252},
		// The two-sample example of the Wilcoxon rank sum test in
		// Hollander & Wolfe (1973), p. 69: W = 35, one-sided p 0.1272.
		{"textbook", []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46},
			[]float64{1.15, 0.88, 0.90, 0.74, 1.21}, 35, 0.2544},
		{"identical", []float64{1, 1, 1}, []float64{1, 1, 1}, 4.5, 1},
		{"one each", []float64{1}, []float64{2}, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MannWhitneyU(tc.x, tc.y)
			if err != nil {
				t.Fatal(err)
			}
			if got.U != tc.u || !near(got.P, tc.p, 5e-4) || !got.Exact {
				t.Errorf("U %v p %.5f exact %v, want U %v p %.5f", got.U, got.P, got.Exact, tc.u, tc.p)
			}
		})
	}
	if _, err := MannWhitneyU(nil, []float64{1}); err == nil {
		t.Error("empty sample: no error")
	}
}

// bruteP enumerates every split of the pooled values into groups of
// n1 and n2 and counts those whose U is at least as far from its mean.
func bruteP(x, y []float64) float64 {
	all := append(append([]float64(nil), x...), y...)
	n1, N := len(x), len(x)+len(y)
	uOf := func(mask int) float64 {
		var u float64
		for i := range N {
			if mask&(1<<i) == 0 {
				continue
			}
			for j := range N {
				if mask&(1<<j) != 0 {
					continue
				}
				switch {
				case all[i] > all[j]:
					u++
				case all[i] == all[j]:
					u += 0.5
				}
			}
		}
		return u
	}
	mean := float64(n1*(N-n1)) / 2
	obs := math.Abs(uOf(1<<n1-1) - mean)
	var hit, total float64
	for mask := range 1 << N {
		if popcount(mask) != n1 {
			continue
		}
		total++
		if math.Abs(uOf(mask)-mean) >= obs-1e-9 {
			hit++
		}
	}
	return hit / total
}

func popcount(m int) int {
	c := 0
	for ; m != 0; m &= m - 1 {
		c++
	}
	return c
}

func TestMannWhitneyExactWithTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n1, n2 := 1+rng.IntN(6), 1+rng.IntN(6)
		x, y := make([]float64, n1), make([]float64, n2)
		for i := range x {
			x[i] = float64(rng.IntN(4)) // few values: many ties
		}
		for i := range y {
			y[i] = float64(rng.IntN(4) + rng.IntN(2))
		}
		got, err := MannWhitneyU(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if want := bruteP(x, y); !near(got.P, want, 1e-9) {
			t.Fatalf("trial %d: x %v y %v: p %.6f, enumeration %.6f", trial, x, y, got.P, want)
		}
	}
}

func TestMannWhitneyNormalApproximation(t *testing.T) {
	// 40 and 40 values: exact is off, the approximation must agree with a
	// clear shift and with no shift.
	x, y, z := make([]float64, 40), make([]float64, 40), make([]float64, 40)
	for i := range x {
		x[i] = float64(i)
		y[i] = float64(i) + 20
		z[i] = float64(i) + 0.5
	}
	got, _ := MannWhitneyU(x, y)
	if got.Exact || got.P > 1e-4 {
		t.Errorf("shifted: p %v exact %v, want tiny and approximate", got.P, got.Exact)
	}
	got, _ = MannWhitneyU(x, z)
	if got.P < 0.5 {
		t.Errorf("interleaved: p %v, want large", got.P)
	}
}

func TestMinP(t *testing.T) {
	tests := []struct {
		n1, n2 int
		want   float64
	}{{1, 1, 1}, {3, 3, 0.1}, {4, 4, 2.0 / 70}, {5, 5, 2.0 / 252}, {0, 5, 1}}
	for _, tc := range tests {
		if got := MinP(tc.n1, tc.n2); !near(got, tc.want, 1e-12) {
			t.Errorf("MinP(%d,%d) = %v, want %v", tc.n1, tc.n2, got, tc.want)
		}
	}
}

func TestHodgesLehmann(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	y := []float64{11, 12, 13, 14, 15}
	sh, err := HodgesLehmann(x, y, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	// The 25 differences are 6..14 with multiplicities 1,2,3,4,5,4,3,2,1;
	// for 5+5 at 95% the Moses interval is [d(3), d(23)] with coverage
	// 1 - 2*4/252.
	if sh.Estimate != 10 || sh.Lo != 7 || sh.Hi != 13 || !near(sh.Confidence, 1-8.0/252, 1e-12) {
		t.Errorf("got %+v, want 10 [7, 13] at %.4f", sh, 1-8.0/252)
	}
	// Too few values for 95%: an unbounded interval, never a guess.
	sh, _ = HodgesLehmann([]float64{1, 2}, []float64{3, 4}, 0.95)
	if !math.IsInf(sh.Lo, -1) || !math.IsInf(sh.Hi, 1) || sh.Estimate != 2 {
		t.Errorf("2+2: got %+v, want estimate 2 and an unbounded interval", sh)
	}
}

func TestMosesK(t *testing.T) {
	// Critical values of the two-sided 5% rank sum test (Mann-Whitney
	// tables give the largest U rejected: k-1).
	tests := []struct{ n1, n2, k int }{{5, 5, 3}, {4, 4, 1}, {3, 3, 0}, {10, 10, 24}, {6, 8, 9}}
	for _, tc := range tests {
		if k, _ := mosesK(tc.n1, tc.n2, 0.05); k != tc.k {
			t.Errorf("mosesK(%d,%d) = %d, want %d", tc.n1, tc.n2, k, tc.k)
		}
	}
}

func TestQuantileRanks(t *testing.T) {
	tests := []struct {
		n      int64
		q      float64
		lo, hi int64
		ok     bool
	}{
		{100, 0.5, 40, 61, true}, // the textbook interval (x(40), x(61))
		{1000, 0.5, 469, 532, true},
		{100, 0.99, 97, 102, false}, // p99 of 100 calls is not bracketed
		{10000, 0.99, 9880, 9921, true},
		{0, 0.5, 0, 0, false},
	}
	for _, tc := range tests {
		lo, hi, ok := QuantileRanks(tc.n, tc.q, 0.95)
		if lo != tc.lo || hi != tc.hi || ok != tc.ok {
			t.Errorf("QuantileRanks(%d, %v) = %d %d %v, want %d %d %v", tc.n, tc.q, lo, hi, ok, tc.lo, tc.hi, tc.ok)
		}
	}
}

func TestNormalQuantile(t *testing.T) {
	for p, want := range map[float64]float64{0.975: 1.959964, 0.5: 0, 0.995: 2.575829, 0.01: -2.326348} {
		if got := normalQuantile(p); !near(got, want, 1e-5) {
			t.Errorf("normalQuantile(%v) = %v, want %v", p, got, want)
		}
	}
}
