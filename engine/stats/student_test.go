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
		if got := StudentQuantile(0.975, tt.df); math.Abs(got-tt.want) > 2e-3*tt.want {
			t.Errorf("t(0.975, %d) = %.4f, want %.3f", tt.df, got, tt.want)
		}
		if got := StudentQuantile(0.025, tt.df); math.Abs(got+tt.want) > 2e-3*tt.want {
			t.Errorf("t(0.025, %d) = %.4f, want %.3f", tt.df, got, -tt.want)
		}
	}
	if !math.IsNaN(StudentQuantile(0.975, 0)) || !math.IsNaN(StudentQuantile(1, 5)) {
		t.Error("no quantile for df 0 or p 1")
	}
}
