package runner

import (
	"bufio"

	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// machineEnv describes the machine for env.txt.
func machineEnv() []results.KV {
	host, _ := os.Hostname()
	kv := []results.KV{
		{Key: "go", Value: runtime.Version()},
		{Key: "os_arch", Value: runtime.GOOS + "/" + runtime.GOARCH},
		{Key: "hostname", Value: host},
		{Key: "cpus", Value: fmt.Sprint(runtime.NumCPU())},
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kv = append(kv, results.KV{Key: "kernel", Value: strings.TrimSpace(string(b))})
	}
	if v := procField("/proc/cpuinfo", "model name"); v != "" {
		kv = append(kv, results.KV{Key: "cpu_model", Value: v})
	}
	if v := procField("/proc/meminfo", "MemTotal"); v != "" {
		kv = append(kv, results.KV{Key: "mem_total", Value: v})
	}
	return kv
}

// procField returns the first "name: value" of a /proc file.
func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
