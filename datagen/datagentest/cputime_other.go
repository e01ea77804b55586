//go:build !unix

package datagentest

import "time"

// CPUTime is unknown here; benchmarks then report no CPU-time metric.
func CPUTime() time.Duration { return 0 }
