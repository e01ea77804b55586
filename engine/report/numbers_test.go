package report

import "testing"

// The number formats of seed 001's tables.
func TestNumberFormats(t *testing.T) {
	ptr := func(v float64) *float64 { return &v }
	tests := []struct {
		got, want string
	}{
		{FormatMs(0.0834), "0.083"},
		{FormatMs(493.4312), "493.431"},
		{FormatMs(1067.2), "1,067"},
		{FormatMs(999.9996), "1,000"},
		{FormatMs(2204.5), "2,205"},
		{FormatRate(1557.4), "1,557"},
		{FormatRate(865.54), "865.5"},
		{FormatRate(2.0), "2.0"},
		{FormatRate(0.94), "0.9"},
		{FormatRate(999.96), "1,000"},
		{FormatSecs(67.62, 1), "67.6"},
		{FormatSecs(1472.3, 1), "1,472"},
		{optSecs(nil), ""},
		{optSecs(ptr(0.4)), "0.40"},
		{Plural(1, "line", "lines"), "1 line"},
		{Plural(0, "line", "lines"), "0 lines"},
		{Plural(int64(12), "process", "processes"), "12 processes"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
