// Package noise measures what the machine did besides the run while a
// point was measured: the load average, the CPU taken by processes other
// than the run and its servers, the CPU the hypervisor stole and the CPU
// frequency, from /proc and /sys. A latency means little without the
// state of the machine it was measured on; compare reads these figures to
// tell a busy host from a slower build.
package noise

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Sample is the machine's counters at one moment. CPU figures are in
// clock ticks (USER_HZ) summed over every CPU.
type Sample struct {
	At           time.Time
	Total, Idle  uint64 // /proc/stat's cpu line: every state, and idle plus iowait
	Steal        uint64
	Own, Servers uint64 // this process and its descendants; the servers
	Load1        float64
	MHz          float64 // the CPUs' mean current frequency; 0 where not exposed
	Err          error   // why the CPU counters could not be read
}

// Sampler takes samples. Servers names the command names (comm) of the
// processes serving the run on this machine, whose CPU is the run's own
// work, not noise.
type Sampler struct {
	Proc    string // the proc filesystem, /proc
	Sys     string // /sys
	Self    int
	Servers []string
}

// New samples this process's machine.
func New(servers []string) *Sampler {
	return &Sampler{Proc: "/proc", Sys: "/sys", Self: os.Getpid(), Servers: servers}
}

// Take reads a sample.
func (s *Sampler) Take() Sample {
	out := Sample{At: time.Now()}
	out.Total, out.Idle, out.Steal, out.Err = s.cpuLine()
	if out.Err == nil {
		out.Own, out.Servers = s.processes()
	}
	if b, err := os.ReadFile(filepath.Join(s.Proc, "loadavg")); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			out.Load1, _ = strconv.ParseFloat(f[0], 64)
		}
	}
	out.MHz = s.mhz()
	return out
}

// cpuLine reads the aggregate line of /proc/stat: user nice system idle
// iowait irq softirq steal guest guest_nice. Guest time is part of user
// time already.
func (s *Sampler) cpuLine() (total, idle, steal uint64, err error) {
	b, err := os.ReadFile(filepath.Join(s.Proc, "stat"))
	if err != nil {
		return 0, 0, 0, fmt.Errorf("noise: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, 0, errors.New("noise: no cpu line in /proc/stat")
	}
	for i, v := range f[1:min(len(f), 9)] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("noise: /proc/stat: %w", err)
		}
		total += n
		switch i {
		case 3, 4:
			idle += n
		case 7:
			steal = n
		}
	}
	return total, idle, steal, nil
}

// proc is one process of /proc/<pid>/stat.
type proc struct {
	pid, ppid int
	comm      string
	cpu       uint64 // utime + stime + cutime + cstime
}

// processes sums the CPU of this process with its descendants and of the
// servers. Reaped children's CPU is in their parent's cutime and cstime,
// so a worker that exits between two samples keeps counting as the run's.
func (s *Sampler) processes() (own, servers uint64) {
	entries, err := os.ReadDir(s.Proc)
	if err != nil {
		return 0, 0
	}
	var procs []proc
	children := map[int][]int{}
	byPID := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, ok := readStat(filepath.Join(s.Proc, e.Name(), "stat"))
		if !ok {
			continue // gone meanwhile
		}
		p.pid = pid
		byPID[pid] = len(procs)
		procs = append(procs, p)
		children[p.ppid] = append(children[p.ppid], pid)
	}
	seen := map[int]bool{}
	stack := []int{s.Self}
	for len(stack) > 0 {
		pid := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, ok := byPID[pid]
		if !ok || seen[pid] {
			continue
		}
		seen[pid] = true
		own += procs[i].cpu
		stack = append(stack, children[pid]...)
	}
	for _, p := range procs {
		if !seen[p.pid] && slices.Contains(s.Servers, p.comm) {
			servers += p.cpu
		}
	}
	return own, servers
}

// readStat parses /proc/<pid>/stat: pid (comm) state ppid ... utime(14)
// stime(15) cutime(16) cstime(17). comm may hold spaces and parentheses,
// so the fields are read after the last ')'.
func readStat(path string) (proc, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return proc{}, false
	}
	st := string(b)
	open, end := strings.IndexByte(st, '('), strings.LastIndexByte(st, ')')
	if open < 0 || end < open {
		return proc{}, false
	}
	f := strings.Fields(st[end+1:])
	if len(f) < 15 {
		return proc{}, false
	}
	p := proc{comm: st[open+1 : end]}
	p.ppid, _ = strconv.Atoi(f[1])
	for _, v := range f[11:15] { // utime stime cutime cstime
		n, _ := strconv.ParseInt(v, 10, 64)
		if n > 0 {
			p.cpu += uint64(n)
		}
	}
	return p, true
}

// mhz is the mean current frequency of the CPUs, from cpufreq where the
// kernel exposes it, else /proc/cpuinfo's "cpu MHz" lines.
func (s *Sampler) mhz() float64 {
	files, _ := filepath.Glob(filepath.Join(s.Sys, "devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq"))
	var sum float64
	n := 0
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			if v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64); err == nil {
				sum += v / 1000 // kHz
				n++
			}
		}
	}
	if n == 0 {
		b, err := os.ReadFile(filepath.Join(s.Proc, "cpuinfo"))
		if err != nil {
			return 0
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if ok && strings.TrimSpace(k) == "cpu MHz" {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					sum += f
					n++
				}
			}
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// Interval is the noise between two samples. Shares are percentages of
// the whole machine's CPU time (every CPU) over the interval.
type Interval struct {
	Seconds   float64
	Load1     float64 // at the end of the interval
	CPUs      int
	BusyPct   float64 // every process, idle, iowait and steal excepted
	OwnPct    float64 // the run: this process and its descendants (workers)
	ServerPct float64 // the servers serving it on this machine
	OtherPct  float64 // everything else: the noise
	StealPct  float64 // taken by the hypervisor
	MHz       float64 // the mean of both samples' frequencies; 0 unknown
	Err       error
}

// Between is the noise from a to b.
func Between(a, b Sample) Interval {
	iv := Interval{Seconds: b.At.Sub(a.At).Seconds(), Load1: b.Load1, CPUs: runtime.NumCPU()}
	switch {
	case a.MHz > 0 && b.MHz > 0:
		iv.MHz = (a.MHz + b.MHz) / 2
	default:
		iv.MHz = max(a.MHz, b.MHz)
	}
	if iv.Err = errors.Join(a.Err, b.Err); iv.Err != nil {
		return iv
	}
	total := float64(b.Total - a.Total)
	if b.Total <= a.Total {
		iv.Err = errors.New("noise: no CPU time passed between the samples")
		return iv
	}
	pct := func(hi, lo uint64) float64 {
		if hi <= lo {
			return 0
		}
		return 100 * float64(hi-lo) / total
	}
	iv.StealPct = pct(b.Steal, a.Steal)
	iv.BusyPct = max(0, 100-pct(b.Idle, a.Idle)-iv.StealPct)
	iv.OwnPct = min(pct(b.Own, a.Own), iv.BusyPct)
	iv.ServerPct = min(pct(b.Servers, a.Servers), iv.BusyPct-iv.OwnPct)
	iv.OtherPct = max(0, iv.BusyPct-iv.OwnPct-iv.ServerPct)
	return iv
}
