// Package stats holds the distribution-free statistics of compare and of
// adaptive sampling: the Mann-Whitney U test with its exact null
// distribution (ties included), the Hodges-Lehmann shift with its Moses
// confidence interval, and the order-statistic confidence interval of a
// quantile. Small samples are the norm here (a handful of reps), so exact
// distributions are used wherever they are cheap; large samples fall back
// to the normal approximation.
package stats

import (
	"errors"
	"math"
	"slices"
)

// exactLimit bounds the sizes for which the exact U distribution is
// computed (its cost grows as (n1+n2)^2 * min(n1,n2)).
const exactLimit = 50

// ErrTooFew is returned when a sample is empty.
var ErrTooFew = errors.New("stats: empty sample")

// MannWhitney is the outcome of a two-sided Mann-Whitney U test.
type MannWhitney struct {
	N1, N2 int
	U      float64 // U of the first sample: pairs (x, y) with x > y, ties count 1/2
	P      float64 // two-sided p-value
	Exact  bool    // P from the exact null distribution (else normal approximation)
}

// MannWhitneyU tests whether x and y come from the same distribution
// against a shift in either direction.
func MannWhitneyU(x, y []float64) (MannWhitney, error) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return MannWhitney{}, ErrTooFew
	}
	all := make([]float64, 0, n1+n2)
	all = append(all, x...)
	all = append(all, y...)
	ranks2 := doubledRanks(all) // 2 * midrank: integers even with ties
	var r1 int
	for i := range n1 {
		r1 += ranks2[i]
	}
	// U1 = R1 - n1(n1+1)/2, in halves.
	u2 := r1 - n1*(n1+1)
	res := MannWhitney{N1: n1, N2: n2, U: float64(u2) / 2}
	if n1+n2 <= exactLimit {
		res.Exact = true
		res.P = exactP(ranks2, n1, r1)
		return res, nil
	}
	res.P = normalP(all, n1, n2, res.U)
	return res, nil
}

// MinP is the smallest two-sided p-value the U test can give for samples
// of n1 and n2 values (without ties): 2 / C(n1+n2, n1). When it exceeds
// the significance level, no outcome can be significant.
func MinP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	return math.Min(1, 2/binom(n1+n2, n1))
}

func binom(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}

// doubledRanks returns 2 * the midrank of each value (1-based).
func doubledRanks(v []float64) []int {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case v[a] < v[b]:
			return -1
		case v[a] > v[b]:
			return 1
		}
		return 0
	})
	r := make([]int, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		// positions i..j (0-based) share the midrank (i+1+j+1)/2.
		for k := i; k <= j; k++ {
			r[idx[k]] = i + j + 2
		}
		i = j + 1
	}
	return r
}

// exactP is the two-sided p-value of the rank sum r1 (doubled) of the
// first n1 values, from the permutation distribution of the doubled ranks
// (which handles ties exactly): P(|R - E R| >= |r1 - E R|).
func exactP(ranks2 []int, n1, r1 int) float64 {
	total := 0
	for _, r := range ranks2 {
		total += r
	}
	// ways[k][s]: subsets of size k with doubled rank sum s.
	ways := make([][]float64, n1+1)
	for k := range ways {
		ways[k] = make([]float64, total+1)
	}
	ways[0][0] = 1
	for i, r := range ranks2 {
		for k := min(i+1, n1); k >= 1; k-- {
			prev, cur := ways[k-1], ways[k]
			for s := total; s >= r; s-- {
				cur[s] += prev[s-r]
			}
		}
	}
	// E R1 (doubled) = n1 * total / N; compare |s - mean| in units of N
	// to stay in integers.
	N := len(ranks2)
	dev := func(s int) int { return abs(s*N - n1*total) }
	obs := dev(r1)
	var tail, all float64
	for s, w := range ways[n1] {
		if w == 0 {
			continue
		}
		all += w
		if dev(s) >= obs {
			tail += w
		}
	}
	return math.Min(1, tail/all)
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

// normalP is the normal approximation with the tie correction and a
// continuity correction.
func normalP(all []float64, n1, n2 int, u float64) float64 {
	N := float64(n1 + n2)
	sorted := slices.Clone(all)
	slices.Sort(sorted)
	var ties float64
	for i := 0; i < len(sorted); {
		j := i
		for j+1 < len(sorted) && sorted[j+1] == sorted[i] {
			j++
		}
		t := float64(j - i + 1)
		ties += t*t*t - t
		i = j + 1
	}
	mu := float64(n1) * float64(n2) / 2
	sigma := math.Sqrt(float64(n1) * float64(n2) / 12 * ((N + 1) - ties/(N*(N-1))))
	if sigma == 0 {
		return 1
	}
	z := (math.Abs(u-mu) - 0.5) / sigma
	if z < 0 {
		z = 0
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// Shift is the Hodges-Lehmann estimate of the shift y - x with its Moses
// confidence interval: the median and two order statistics of the n1*n2
// pairwise differences. Lo and Hi are infinite when the samples are too
// small for the requested confidence.
type Shift struct {
	Estimate, Lo, Hi float64
	Confidence       float64 // achieved coverage, >= the requested one
}

// HodgesLehmann estimates the shift from x to y at the requested
// confidence (e.g. 0.95).
func HodgesLehmann(x, y []float64, confidence float64) (Shift, error) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return Shift{}, ErrTooFew
	}
	d := make([]float64, 0, n1*n2)
	for _, a := range x {
		for _, b := range y {
			d = append(d, b-a)
		}
	}
	slices.Sort(d)
	m := len(d)
	sh := Shift{Estimate: median(d), Lo: math.Inf(-1), Hi: math.Inf(1), Confidence: 1}
	k, cover := mosesK(n1, n2, 1-confidence)
	if k >= 1 {
		sh.Lo, sh.Hi, sh.Confidence = d[k-1], d[m-k], cover
	}
	return sh, nil
}

// mosesK returns the largest k with P(U < k) <= alpha/2 under the null
// (no ties), so that [d_(k), d_(n1 n2 + 1 - k)] covers the shift with
// probability 1 - 2 P(U < k) >= 1 - alpha; k = 0 when even the extreme
// differences do not reach that coverage.
func mosesK(n1, n2 int, alpha float64) (int, float64) {
	cdf := uCDF(n1, n2)
	k := 0
	for k < len(cdf) && cdf[k] <= alpha/2 {
		k++ // cdf[k] = P(U <= k) = P(U < k+1)
	}
	if k == 0 {
		return 0, 1
	}
	return k, 1 - 2*cdf[k-1]
}

// uCDF returns P(U <= u) for u = 0..n1*n2 under the null without ties,
// exactly for small samples, else by the normal approximation.
func uCDF(n1, n2 int) []float64 {
	m := n1 * n2
	cdf := make([]float64, m+1)
	if n1+n2 > exactLimit {
		mu := float64(m) / 2
		sigma := math.Sqrt(float64(n1) * float64(n2) * float64(n1+n2+1) / 12)
		for u := range cdf {
			cdf[u] = 0.5 * math.Erfc(-(float64(u)+0.5-mu)/(sigma*math.Sqrt2))
		}
		return cdf
	}
	// f[i][j][u]: arrangements of i x's and j y's with U = u; by the last
	// element's origin, f(i,j,u) = f(i-1,j,u-j) + f(i,j-1,u).
	f := make([][]float64, n2+1) // f[j] for the current i
	for j := range f {
		f[j] = make([]float64, m+1)
		f[j][0] = 1 // i = 0
	}
	for i := 1; i <= n1; i++ {
		g := make([][]float64, n2+1)
		for j := 0; j <= n2; j++ {
			g[j] = make([]float64, m+1)
			for u := 0; u <= m; u++ {
				v := 0.0
				if u >= j {
					v += f[j][u-j]
				}
				if j > 0 {
					v += g[j-1][u]
				}
				g[j][u] = v
			}
		}
		f = g
	}
	total := binom(n1+n2, n1)
	acc := 0.0
	for u := range cdf {
		acc += f[n2][u]
		cdf[u] = acc / total
	}
	return cdf
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Median returns the median of v (v is not modified).
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return median(s)
}

// QuantileRanks returns the 1-based ranks (lo, hi) of the order
// statistics that bracket the q-quantile of n i.i.d. values with at least
// the given confidence, by the normal approximation of the binomial
// count below the quantile. ok is false when the interval would reach past
// the sample (too few values for that quantile).
func QuantileRanks(n int64, q, confidence float64) (lo, hi int64, ok bool) {
	if n <= 0 || q <= 0 || q >= 1 {
		return 0, 0, false
	}
	z := normalQuantile(1 - (1-confidence)/2)
	nf := float64(n)
	half := z * math.Sqrt(nf*q*(1-q))
	lo = int64(math.Floor(nf*q - half))
	hi = int64(math.Ceil(nf*q+half)) + 1
	if lo < 1 || hi > n {
		return lo, hi, false
	}
	return lo, hi, true
}

// normalQuantile is the inverse of the standard normal CDF (Acklam's
// rational approximation, relative error < 1.2e-9).
func normalQuantile(p float64) float64 {
	if p <= 0 {
		return math.Inf(-1)
	}
	if p >= 1 {
		return math.Inf(1)
	}
	a := [6]float64{-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00}
	b := [5]float64{-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01}
	c := [6]float64{-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00}
	d := [4]float64{7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00}
	const plow = 0.02425
	switch {
	case p < plow:
		q := math.Sqrt(-2 * math.Log(p))
		return (((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	case p > 1-plow:
		q := math.Sqrt(-2 * math.Log(1-p))
		return -(((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	}
	q := p - 0.5
	r := q * q
	return (((((a[0]*r+a[1])*r+a[2])*r+a[3])*r+a[4])*r + a[5]) * q / (((((b[0]*r+b[1])*r+b[2])*r+b[3])*r+b[4])*r + 1)
}
