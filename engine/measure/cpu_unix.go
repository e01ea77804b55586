//go:build unix

package measure

import (
	"syscall"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers/helpercpu"
)

// processCPU is the CPU time (user and system) this process and the
// helper processes of its drivers (adapters) have used, 0 when the system
// does not say.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) + helpercpu.Total()
}
