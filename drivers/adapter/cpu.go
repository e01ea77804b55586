package adapter

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers/helpercpu"
)

// cpuTracker is the CPU of this process's adapters: the ones that ended
// (their rusage) and the live ones (read from /proc where there is one).
type cpuTracker struct {
	mu    sync.Mutex
	ended time.Duration
	live  map[*proc]bool
}

var cpu = &cpuTracker{live: map[*proc]bool{}}

func init() { helpercpu.Register(cpu.total) }

func (c *cpuTracker) started(p *proc) {
	c.mu.Lock()
	c.live[p] = true
	c.mu.Unlock()
}

func (c *cpuTracker) exited(st *os.ProcessState) {
	if st == nil {
		return
	}
	c.mu.Lock()
	c.ended += st.UserTime() + st.SystemTime()
	for p := range c.live {
		if p.cmd.ProcessState == st {
			delete(c.live, p)
		}
	}
	c.mu.Unlock()
}

// total never decreases: a process moves from live to ended with at
// least the CPU last read of it.
func (c *cpuTracker) total() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.ended
	for p := range c.live {
		t += procCPU(p.cmd.Process.Pid)
	}
	return t
}

// clkTck is the kernel's clock ticks per second for /proc/PID/stat
// (USER_HZ, 100 on every Linux the engine runs on).
const clkTck = 100

// procCPU reads utime+stime of a live process from /proc; 0 where there
// is no /proc.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command may hold spaces
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	// After the command: state is field 3, utime 14 and stime 15.
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * time.Second / clkTck
}
