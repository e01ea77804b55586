package host

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Machine describes the machine for env.txt.
func Machine() []results.KV {
	host, _ := os.Hostname()
	kv := []results.KV{
		Fact("go", runtime.Version(), "the Go runtime"),
		Fact("os_arch", runtime.GOOS+"/"+runtime.GOARCH, "the Go runtime"),
		Fact("hostname", host, "uname"),
		Fact("cpus", fmt.Sprint(runtime.NumCPU()), "the CPUs this process may use"),
	}
	v, err := readTrim("/proc/sys/kernel/osrelease")
	kv = append(kv, factOr("kernel", "/proc/sys/kernel/osrelease", v, err))
	for _, f := range []struct{ key, path, field string }{
		{"cpu_model", "/proc/cpuinfo", "model name"}, {"mem_total", "/proc/meminfo", "MemTotal"}} {
		if v := procField(f.path, f.field); v != "" {
			kv = append(kv, Fact(f.key, v, f.path))
		} else {
			kv = append(kv, results.KV{Key: f.key, Value: "unknown (no " + f.field + " in " + f.path + ")"})
		}
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

// LoadAverage is the 1-minute load average (/proc/loadavg); false where
// the OS does not say.
func LoadAverage() (float64, bool) {
	v, err := readTrim("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.Fields(v + " ")[0], 64)
	return f, err == nil
}
