// Package usl fits Gunther's Universal Scalability Law to throughput
// measured at several concurrencies:
//
//	X(N) = λN / (1 + σ(N-1) + κN(N-1))
//
// λ is the throughput of one client, σ the share of work serialised
// (contention), κ the cost of keeping N clients coherent (crosstalk, what
// makes throughput fall past a peak). The fit is nonlinear least squares
// (Levenberg-Marquardt, σ and κ kept >= 0) and its uncertainty the
// asymptotic covariance s²(JᵀJ)⁻¹ of the estimates: each parameter's 95%
// interval is ±t(n-3) standard errors, the peak's by the delta method, and
// every measured point is judged against the 95% prediction interval, at
// its concurrency, of the fit to the other points (leave one out, so an
// outlier cannot widen its own interval): a point the law does not
// explain is reported, not smoothed over. A bootstrap would need more points than a
// sweep of five or six client counts gives; the covariance says as much
// with its wide t factor.
package usl

import (
	"errors"
	"fmt"
	"math"

	"github.com/mentat-spec/mentat-spec/engine/stats"
)

// Point is one measurement: throughput at a concurrency.
type Point struct {
	N float64 // clients (or calls in flight)
	X float64 // throughput, calls per second
}

// Interval is an estimate with its 95% interval.
type Interval struct {
	Value, Low, High float64
}

// Residual is a measured point against the fitted curve.
type Residual struct {
	Point
	Fitted float64
	// Low and High are the 95% prediction interval at the point's
	// concurrency of the fit to the other points (of the fit to all when
	// the others are too few); Outside says the measurement lies beyond
	// it.
	Low, High float64
	Outside   bool
}

// Fit is the law fitted to points.
type Fit struct {
	Lambda, Sigma, Kappa Interval
	// PeakN is the concurrency of the highest throughput, PeakX that
	// throughput; +Inf when κ is 0 (throughput grows to an asymptote λ/σ).
	PeakN, PeakX Interval
	Residuals    []Residual
	// RelRMSE is the residuals' root mean square relative to the mean
	// throughput: how well the curve follows the points.
	RelRMSE float64
}

// Outside lists the points outside the fit's prediction interval.
func (f *Fit) Outside() []Residual {
	var out []Residual
	for _, r := range f.Residuals {
		if r.Outside {
			out = append(out, r)
		}
	}
	return out
}

// Throughput is the law at n with parameters p = (λ, σ, κ).
func Throughput(n, lambda, sigma, kappa float64) float64 {
	return lambda * n / (1 + sigma*(n-1) + kappa*n*(n-1))
}

// ErrTooFew is returned for fewer than four distinct concurrencies: three
// parameters and at least one degree of freedom for their uncertainty.
var ErrTooFew = errors.New("usl: a fit needs throughput at four or more concurrencies")

// FitPoints fits the law to pts.
func FitPoints(pts []Point) (*Fit, error) {
	distinct := map[float64]bool{}
	for _, p := range pts {
		if !(p.N >= 1) || !(p.X > 0) || math.IsInf(p.X, 0) || math.IsInf(p.N, 0) {
			return nil, fmt.Errorf("usl: point N=%v X=%v: concurrency must be >= 1 and throughput positive", p.N, p.X)
		}
		distinct[p.N] = true
	}
	if len(distinct) < 4 {
		return nil, ErrTooFew
	}
	p := initial(pts)
	p, err := marquardt(pts, p)
	if err != nil {
		return nil, err
	}
	return summarize(pts, p)
}

// initial guesses λ from the lowest concurrency's throughput per client,
// then σ and κ by linear least squares through the origin of the law's
// linear form: N·λ/X - 1 = σ(N-1) + κN(N-1).
func initial(pts []Point) [3]float64 {
	lo := pts[0]
	for _, p := range pts {
		if p.N < lo.N {
			lo = p
		}
	}
	lambda := lo.X / lo.N
	var a11, a12, a22, b1, b2 float64
	for _, p := range pts {
		u, v := p.N-1, p.N*(p.N-1)
		y := p.N*lambda/p.X - 1
		a11 += u * u
		a12 += u * v
		a22 += v * v
		b1 += u * y
		b2 += v * y
	}
	det := a11*a22 - a12*a12
	var sigma, kappa float64
	if det > 0 {
		sigma = (a22*b1 - a12*b2) / det
		kappa = (a11*b2 - a12*b1) / det
	}
	return [3]float64{lambda, math.Max(sigma, 1e-6), math.Max(kappa, 1e-9)}
}

// residuals and the Jacobian of the model at p.
func jacobian(pts []Point, p [3]float64) (r []float64, J [][3]float64) {
	l, s, k := p[0], p[1], p[2]
	for _, pt := range pts {
		n := pt.N
		d := 1 + s*(n-1) + k*n*(n-1)
		f := l * n / d
		r = append(r, pt.X-f)
		J = append(J, [3]float64{n / d, -f * (n - 1) / d, -f * n * (n - 1) / d})
	}
	return r, J
}

func ssr(pts []Point, p [3]float64) float64 {
	var s float64
	for _, pt := range pts {
		e := pt.X - Throughput(pt.N, p[0], p[1], p[2])
		s += e * e
	}
	return s
}

// marquardt minimises the squared residuals from p, keeping σ, κ >= 0 and
// λ > 0 by projection.
func marquardt(pts []Point, p [3]float64) ([3]float64, error) {
	mu := 1e-3
	cur := ssr(pts, p)
	for iter := 0; iter < 500; iter++ {
		r, J := jacobian(pts, p)
		var A [3][3]float64
		var g [3]float64
		for i := range r {
			for a := 0; a < 3; a++ {
				g[a] += J[i][a] * r[i]
				for b := 0; b < 3; b++ {
					A[a][b] += J[i][a] * J[i][b]
				}
			}
		}
		improved := false
		for try := 0; try < 30; try++ {
			M := A
			for a := 0; a < 3; a++ {
				M[a][a] += mu * math.Max(A[a][a], 1e-300)
			}
			step, ok := solve3(M, g)
			if !ok {
				mu *= 10
				continue
			}
			next := [3]float64{math.Max(p[0]+step[0], 1e-12), math.Max(p[1]+step[1], 0), math.Max(p[2]+step[2], 0)}
			if s := ssr(pts, next); s < cur {
				rel := (cur - s) / math.Max(cur, 1e-300)
				p, cur, improved = next, s, true
				mu = math.Max(mu/10, 1e-12)
				if rel < 1e-12 {
					return p, nil
				}
				break
			}
			mu *= 10
		}
		if !improved {
			return p, nil // no step lowers the residuals: a minimum
		}
	}
	return p, nil
}

// solve3 solves M x = b by Gaussian elimination with partial pivoting.
func solve3(M [3][3]float64, b [3]float64) ([3]float64, bool) {
	for c := 0; c < 3; c++ {
		piv := c
		for r := c + 1; r < 3; r++ {
			if math.Abs(M[r][c]) > math.Abs(M[piv][c]) {
				piv = r
			}
		}
		if M[piv][c] == 0 || math.IsNaN(M[piv][c]) {
			return [3]float64{}, false
		}
		M[c], M[piv] = M[piv], M[c]
		b[c], b[piv] = b[piv], b[c]
		for r := c + 1; r < 3; r++ {
			f := M[r][c] / M[c][c]
			for k := c; k < 3; k++ {
				M[r][k] -= f * M[c][k]
			}
			b[r] -= f * b[c]
		}
	}
	var x [3]float64
	for r := 2; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < 3; k++ {
			s -= M[r][k] * x[k]
		}
		x[r] = s / M[r][r]
	}
	return x, true
}

// inverse3 inverts a symmetric positive definite 3x3 matrix.
func inverse3(A [3][3]float64) ([3][3]float64, bool) {
	var inv [3][3]float64
	for c := 0; c < 3; c++ {
		var e [3]float64
		e[c] = 1
		x, ok := solve3(A, e)
		if !ok {
			return inv, false
		}
		for r := 0; r < 3; r++ {
			inv[r][c] = x[r]
		}
	}
	return inv, true
}

// summarize computes the intervals, the peak and the residuals of the fit
// p.
func summarize(pts []Point, p [3]float64) (*Fit, error) {
	n := len(pts)
	df := n - 3
	s2 := ssr(pts, p) / float64(df)
	_, J := jacobian(pts, p)
	var A [3][3]float64
	for i := range J {
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				A[a][b] += J[i][a] * J[i][b]
			}
		}
	}
	inv, ok := inverse3(A)
	if !ok {
		return nil, errors.New("usl: the points do not determine the three parameters (singular fit)")
	}
	var cov [3][3]float64
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			cov[a][b] = s2 * inv[a][b]
		}
	}
	t := stats.StudentQuantile(0.975, float64(df))
	iv := func(v, variance float64) Interval {
		h := t * math.Sqrt(math.Max(variance, 0))
		return Interval{Value: v, Low: v - h, High: v + h}
	}
	f := &Fit{Lambda: iv(p[0], cov[0][0]), Sigma: iv(p[1], cov[1][1]), Kappa: iv(p[2], cov[2][2])}
	// σ and κ are >= 0 by the law: their intervals stop there.
	f.Sigma.Low, f.Kappa.Low = math.Max(f.Sigma.Low, 0), math.Max(f.Kappa.Low, 0)
	quad := func(g [3]float64) float64 {
		var v float64
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				v += g[a] * cov[a][b] * g[b]
			}
		}
		return v
	}
	peakN := func(q [3]float64) float64 {
		if q[2] <= 0 || q[1] >= 1 {
			return math.Inf(1)
		}
		return math.Sqrt((1 - q[1]) / q[2])
	}
	peakX := func(q [3]float64) float64 {
		nn := peakN(q)
		if math.IsInf(nn, 1) {
			if q[1] > 0 {
				return q[0] / q[1]
			}
			return math.Inf(1)
		}
		return Throughput(nn, q[0], q[1], q[2])
	}
	f.PeakN = delta(peakN, p, quad, t)
	f.PeakX = delta(peakX, p, quad, t)
	var sumSq, sumX float64
	for i, pt := range pts {
		fit := Throughput(pt.N, p[0], p[1], p[2])
		lo, hi := predict(pts, i, p)
		if math.IsNaN(lo) {
			h := t * math.Sqrt(s2+quad(J[i]))
			lo, hi = fit-h, fit+h
		}
		f.Residuals = append(f.Residuals, Residual{Point: pt, Fitted: fit, Low: lo, High: hi, Outside: pt.X < lo || pt.X > hi})
		e := pt.X - fit
		sumSq += e * e
		sumX += pt.X
	}
	f.RelRMSE = math.Sqrt(sumSq/float64(n)) / (sumX / float64(n))
	return f, nil
}

// predict is the 95% prediction interval at point i of the law fitted to
// the other points (from p): a point is judged by a fit it did not pull
// towards itself. NaN when the others are too few (fewer than four
// concurrencies, or one degree of freedom: t(1) is 12.7 and says nothing).
func predict(pts []Point, i int, p [3]float64) (lo, hi float64) {
	others := make([]Point, 0, len(pts)-1)
	distinct := map[float64]bool{}
	for j, pt := range pts {
		if j != i {
			others = append(others, pt)
			distinct[pt.N] = true
		}
	}
	df := len(others) - 3
	if len(distinct) < 4 || df < 2 {
		return math.NaN(), math.NaN()
	}
	q, err := marquardt(others, p)
	if err != nil {
		return math.NaN(), math.NaN()
	}
	s2 := ssr(others, q) / float64(df)
	_, J := jacobian(others, q)
	var A [3][3]float64
	for k := range J {
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				A[a][b] += J[k][a] * J[k][b]
			}
		}
	}
	inv, ok := inverse3(A)
	if !ok {
		return math.NaN(), math.NaN()
	}
	_, Ji := jacobian(pts[i:i+1], q)
	var v float64
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			v += Ji[0][a] * s2 * inv[a][b] * Ji[0][b]
		}
	}
	fit := Throughput(pts[i].N, q[0], q[1], q[2])
	h := stats.StudentQuantile(0.975, float64(df)) * math.Sqrt(s2+v)
	return fit - h, fit + h
}

// delta is the interval of fn(p) by the delta method, with fn's gradient
// taken numerically.
func delta(fn func([3]float64) float64, p [3]float64, quad func([3]float64) float64, t float64) Interval {
	v := fn(p)
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return Interval{Value: v, Low: v, High: v}
	}
	var g [3]float64
	for a := 0; a < 3; a++ {
		h := 1e-6 * math.Max(math.Abs(p[a]), 1e-9)
		up, dn := p, p
		up[a] += h
		dn[a] = math.Max(dn[a]-h, 0)
		g[a] = (fn(up) - fn(dn)) / (up[a] - dn[a])
	}
	half := t * math.Sqrt(math.Max(quad(g), 0))
	if math.IsNaN(half) || math.IsInf(half, 0) {
		return Interval{Value: v, Low: 0, High: math.Inf(1)}
	}
	return Interval{Value: v, Low: math.Max(v-half, 0), High: v + half}
}
