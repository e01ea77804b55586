//go:build unix

package datagentest

import (
	"syscall"
	"time"
)

// CPUTime is the process's user+system CPU time: benchmarks report
// datoms per CPU-second too, which stays meaningful on a busy machine.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
