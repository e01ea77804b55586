//go:build !unix

package datagen

import "time"

// cpuTime is unknown here; benchmarks then report no CPU-time metric.
func cpuTime() time.Duration { return 0 }
