package stats

import "math"

// Student's t distribution, exact through the regularized incomplete beta
// function: the p-values and interval factors of the change points, the
// calibrated compare, the capacity's edge and the scalability fit.

// StudentTwoSided is the two-sided p-value of Student's t statistic t
// with df degrees of freedom: P(|T| >= |t|).
func StudentTwoSided(t, df float64) float64 {
	if math.IsNaN(t) || df <= 0 {
		return 1
	}
	if math.IsInf(t, 0) {
		return 0
	}
	x := df / (df + t*t)
	return regIncBeta(df/2, 0.5, x)
}

// StudentQuantile returns q with P(T <= q) = p for Student's t with df
// degrees of freedom (any real df > 0, as Welch-Satterthwaite gives), by
// bisection on the exact distribution function: callers need a few per
// verdict, capacity or fit, so exactness matters more than speed.
func StudentQuantile(p, df float64) float64 {
	if p <= 0 || p >= 1 || df <= 0 {
		return math.NaN()
	}
	if p < 0.5 {
		return -StudentQuantile(1-p, df)
	}
	// P(T <= q) = 1 - p2/2 where p2 is the two-sided tail beyond q.
	want := 2 * (1 - p)
	lo, hi := 0.0, 1.0
	for StudentTwoSided(hi, df) > want {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if StudentTwoSided(mid, df) > want {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-12*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by
// its continued fraction (Numerical Recipes, betacf).
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const (
		maxIter = 300
		eps     = 1e-15
		tiny    = 1e-300
	)
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	// One step of the modified Lentz method with coefficient aa: the
	// factor h is multiplied by.
	step := func(aa float64) float64 {
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		return d * c
	}
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		h *= step(fm * (b - fm) * x / ((qam + m2) * (a + m2)))
		del := step(-(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2)))
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
