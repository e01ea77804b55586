package stats

import (
	"math"
	"testing"
)

func TestStudentQuantile(t *testing.T) {
	// Two-sided 95% factors from the t table.
	tests := []struct {
		df   int
		want float64
	}{{1, 12.706}, {2, 4.303}, {3, 3.182}, {4, 2.776}, {5, 2.571}, {10, 2.228}, {30, 2.042}, {1000, 1.962}}
	for _, tt := range tests {
		if got := StudentQuantile(0.975, float64(tt.df)); math.Abs(got-tt.want) > 2e-3*tt.want {
			t.Errorf("t(0.975, %d) = %.4f, want %.3f", tt.df, got, tt.want)
		}
		if got := StudentQuantile(0.025, float64(tt.df)); math.Abs(got+tt.want) > 2e-3*tt.want {
			t.Errorf("t(0.025, %d) = %.4f, want %.3f", tt.df, got, -tt.want)
		}
	}
	if !math.IsNaN(StudentQuantile(0.975, 0)) || !math.IsNaN(StudentQuantile(1, 5)) {
		t.Error("no quantile for df 0 or p 1")
	}
}

func TestStudentTwoSided(t *testing.T) {
	tests := []struct{ t, df, p float64 }{
		{2.0, 10, 0.07338803},
		{2.228139, 10, 0.05},
		{0, 5, 1},
		{3.5, 58, 0.000897},
	}
	for _, tc := range tests {
		if p := StudentTwoSided(tc.t, tc.df); math.Abs(p-tc.p) > 2e-5 {
			t.Errorf("p(t=%g, df=%g) = %g, want %g", tc.t, tc.df, p, tc.p)
		}
	}
	if q := StudentQuantile(0.975, 10); math.Abs(q-2.228139) > 1e-5 {
		t.Errorf("quantile = %g", q)
	}
	if q := StudentQuantile(0.025, 10); math.Abs(q+2.228139) > 1e-5 {
		t.Errorf("lower quantile = %g", q)
	}
}
