package datagentest

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// ReportRate reports datoms per wall second and per CPU second since
// cpu0 (a CPUTime reading).
func ReportRate(b *testing.B, datoms int64, cpu0 time.Duration) {
	b.ReportMetric(float64(datoms)/b.Elapsed().Seconds(), "datoms/s")
	if cpu := CPUTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(datoms)/cpu.Seconds(), "datoms/cpu-s")
	}
}

// ReportCPU reports process CPU time per op since cpu0.
func ReportCPU(b *testing.B, cpu0 time.Duration) {
	if cpu := CPUTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// Concat returns the concatenation of the files in dir matching pattern,
// in name order: the bytes a sharded export writes, whatever the shards.
func Concat(t *testing.T, dir, pattern string) []byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var out []byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}
