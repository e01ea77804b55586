package measure

import (
	"context"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// rawSleep blocks its thread in the kernel for d without telling Go's
// scheduler, as a database client on a raw blocking socket does while it
// waits for the server.
func rawSleep(d time.Duration) Call {
	ts := syscall.NsecToTimespec(int64(d))
	return func(context.Context) error {
		syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
		return nil
	}
}

// BenchmarkIdlePoint measures what RunPoint itself costs per second of a
// point whose clients spend their time waiting (calls of 5 ms, blocked
// in the kernel): cpu-ms/s is the process's CPU per second of the point,
// controller, watchdog and runtime included; the calls themselves cost
// next to nothing.
func BenchmarkIdlePoint(b *testing.B) {
	for _, clients := range []int{1, 2} {
		b.Run(map[int]string{1: "clients=1", 2: "clients=2"}[clients], func(b *testing.B) {
			calls := make([]Call, clients)
			for i := range calls {
				calls[i] = rawSleep(5 * time.Millisecond)
			}
			s := Sampling{MinDuration: time.Second, MaxDuration: time.Minute, Probe: 20 * time.Second}
			var cpu, wall time.Duration
			for b.Loop() {
				c0 := cpuTime(b)
				res, err := RunPoint(context.Background(), s, []Stream{{Op: "read", Calls: calls}})
				if err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime(b) - c0
				wall += res[0].Elapsed
			}
			b.ReportMetric(float64(cpu.Milliseconds())/wall.Seconds(), "cpu-ms/s")
		})
	}
}
