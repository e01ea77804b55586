package datagen

import (
	"math"

	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
)

// zipfSampler is the rejection-inversion sampler of Hörmann and Derflinger
// ("Rejection-inversion to generate variates from monotone discrete
// distributions", 1996) as in Apache Commons RNG's
// RejectionInversionZipfSampler: O(1) memory and O(1) expected time for
// any exponent > 0, including exponents <= 1. Each attempt takes one
// uniform from the caller, so draws stay counter-based.
type zipfSampler struct {
	n           float64 // number of elements
	exponent    float64
	hIntegralX1 float64 // hIntegral(1.5) - 1
	hIntegralN  float64 // hIntegral(n + 0.5)
	shortcut    float64 // accept without the exact test when k - x <= shortcut
}

func newZipfSampler(n int64, exponent float64) zipfSampler {
	z := zipfSampler{n: float64(n), exponent: exponent}
	z.hIntegralX1 = z.hIntegral(1.5) - 1
	z.hIntegralN = z.hIntegral(z.n + 0.5)
	z.shortcut = 2 - z.hIntegralInverse(z.hIntegral(2.5)-z.h(2))
	return z
}

// maxZipfAttempts bounds the rejection loop; acceptance is above 90% per
// attempt, so reaching it means numeric trouble and the last k is kept.
const maxZipfAttempts = 1000

// sample returns a rank in [0, n) (0 is the most frequent); attempt i
// uses draw index i of the id state h at version word ver.
func (z *zipfSampler) sample(h uint64, ver uint64) int64 {
	var k float64
	for attempt := uint64(0); attempt < maxZipfAttempts; attempt++ {
		var ok bool
		if k, ok = z.attempt(draw.Unit(draw.At(h, ver, attempt))); ok {
			break
		}
	}
	return int64(k) - 1
}

// attempt is one try of the rejection loop with uniform v in [0, 1): a
// 1-based rank k and whether it is accepted.
func (z *zipfSampler) attempt(v float64) (k float64, ok bool) {
	u := z.hIntegralN + v*(z.hIntegralX1-z.hIntegralN)
	x := z.hIntegralInverse(u)
	k = math.Floor(x + 0.5)
	if k < 1 {
		k = 1
	} else if k > z.n {
		k = z.n
	}
	return k, k-x <= z.shortcut || u >= z.hIntegral(k+0.5)-z.h(k)
}

// hIntegral is H(x) = ((x)^(1-q) - 1) / (1 - q), or log(x) for q == 1.
func (z *zipfSampler) hIntegral(x float64) float64 {
	logX := math.Log(x)
	return zipfHelper2((1-z.exponent)*logX) * logX
}

// h is x^-q.
func (z *zipfSampler) h(x float64) float64 {
	return math.Exp(-z.exponent * math.Log(x))
}

// hIntegralInverse is the inverse of hIntegral.
func (z *zipfSampler) hIntegralInverse(x float64) float64 {
	t := x * (1 - z.exponent)
	if t < -1 {
		// Rounding can push t just below -1; clamp into the domain.
		t = -1
	}
	return math.Exp(zipfHelper1(t) * x)
}

// zipfHelper1 is log1p(x)/x, accurate near 0.
func zipfHelper1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// zipfHelper2 is expm1(x)/x, accurate near 0.
func zipfHelper2(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*1.0/3*(1+0.25*x))
}
