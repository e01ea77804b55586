package stats

import "math"

// StudentQuantile is the p-quantile of Student's t distribution with df
// degrees of freedom: the factor of a confidence interval from a few
// repeated measurements (a capacity's edge estimates, a fit's parameters).
// df 1 and 2 are exact; larger df use Hill's expansion around the normal
// quantile (error below 1e-3 at df 3, far less beyond).
func StudentQuantile(p float64, df int) float64 {
	switch {
	case df <= 0 || p <= 0 || p >= 1:
		return math.NaN()
	case df == 1:
		return math.Tan(math.Pi * (p - 0.5))
	case df == 2:
		return (2*p - 1) / math.Sqrt(2*p*(1-p))
	}
	z := normalQuantile(p)
	n := float64(df)
	z2 := z * z
	g1 := (z2 + 1) * z / 4
	g2 := ((5*z2+16)*z2 + 3) * z / 96
	g3 := (((3*z2+19)*z2+17)*z2 - 15) * z / 384
	g4 := ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) * z / 92160
	return z + g1/n + g2/(n*n) + g3/(n*n*n) + g4/(n*n*n*n)
}
