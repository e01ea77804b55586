package sampler

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// procs samples the engine's own process and the processes named in
// names (their comm, e.g. "postgres"), summed per name, from /proc.
type procs struct {
	names    []string
	server   int     // the server's main process; 0: none
	tick     float64 // clock ticks per second of /proc/<pid>/stat
	lastAt   time.Time
	lastCPU  map[string]float64
	pageSize int64
}

func newProcs(names []string) (*procs, error) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return nil, errors.New("no /proc here: process sampling needs Linux")
	}
	return &procs{names: names, tick: 100, lastCPU: map[string]float64{}, pageSize: int64(os.Getpagesize())}, nil
}

// sample returns a row per group: engine, the server (its main process
// and that one's children) when known, then each name.
func (p *procs) sample(context.Context) ([]string, [][]string, error) {
	groups := map[string][]int{"engine": {os.Getpid()}}
	order := []string{"engine"}
	if p.server > 0 {
		order = append(order, "server")
		groups["server"] = []int{p.server}
	}
	order = append(order, p.names...)
	if len(p.names) > 0 || p.server > 0 {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return nil, nil, fmt.Errorf("reading /proc: %w", err)
		}
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			if p.server > 0 {
				if pp, err := parentOf(pid); err == nil && pp == p.server {
					groups["server"] = append(groups["server"], pid)
				}
			}
			comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
			if err != nil {
				continue
			}
			c := strings.TrimSpace(string(comm))
			for _, n := range p.names {
				if c == n {
					groups[n] = append(groups[n], pid)
				}
			}
		}
	}
	now := time.Now()
	dt := now.Sub(p.lastAt).Seconds()
	var rows [][]string
	for _, g := range order {
		var rss int64
		var cpu float64
		for _, pid := range groups[g] {
			r, c, err := p.read(pid)
			if err != nil {
				continue // the process ended between listing and reading
			}
			rss += r
			cpu += c
		}
		pct := ""
		if prev, ok := p.lastCPU[g]; ok && dt > 0 {
			pct = strconv.FormatFloat(max(cpu-prev, 0)/dt*100, 'f', 1, 64)
		}
		p.lastCPU[g] = cpu
		rows = append(rows, []string{g, strconv.Itoa(len(groups[g])), strconv.FormatInt(rss/1024, 10),
			strconv.FormatFloat(cpu, 'f', 2, 64), pct})
	}
	p.lastAt = now
	return []string{"process", "pids", "rss_kib", "cpu_s", "cpu_pct"}, rows, nil
}

// read returns a process's resident bytes and CPU seconds (user+system).
func (p *procs) read(pid int) (int64, float64, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, err
	}
	s := string(b)
	// Fields after the command, which may hold spaces, in parentheses.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state): utime is field 14, stime 15, rss 24.
	if len(f) < 22 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	rss, _ := strconv.ParseInt(f[21], 10, 64)
	return rss * p.pageSize, (ut + st) / p.tick, nil
}

// parentOf returns a process's parent pid.
func parentOf(pid int) (int, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	if i < 0 || len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return strconv.Atoi(f[1])
}
