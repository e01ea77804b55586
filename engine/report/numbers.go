package report

import (
	"math"
	"strconv"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The number formats of seed 001's tables, shared by every report.

// FormatMs formats milliseconds: 3 decimals under 1000 ms, whole with separators above: 0.083, 1,067.
func FormatMs(v float64) string {
	if r := math.Round(v*1000) / 1000; r < 1000 {
		return strconv.FormatFloat(r, 'f', 3, 64)
	}
	return results.Thousands(int64(math.Round(v)))
}

// FormatRate formats a rate: 1 decimal under 1000 ops/s, whole with separators above: 865.5, 1,557.
func FormatRate(v float64) string {
	if r := math.Round(v*10) / 10; r < 1000 {
		return strconv.FormatFloat(r, 'f', 1, 64)
	}
	return results.Thousands(int64(math.Round(v)))
}

// FormatSecs formats seconds: dec decimals under 1000 s, whole with separators above.
func FormatSecs(v float64, dec int) string {
	p := math.Pow10(dec)
	if r := math.Round(v*p) / p; r < 1000 {
		return strconv.FormatFloat(r, 'f', dec, 64)
	}
	return results.Thousands(int64(math.Round(v)))
}

// optSecs formats a step's seconds, empty when it did not run.
func optSecs(v *float64) string {
	if v == nil {
		return ""
	}
	return FormatSecs(*v, 2)
}

// Plural is n and the noun in its number: "1 line", "3 lines".
func Plural[N int | int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(int64(n), 10) + " " + many
}
