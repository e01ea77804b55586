package host

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/mentat-spec/mentat-spec/engine/buildinfo"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Fact is one env.txt line with where its value was read. A value that
// cannot be read is written as "unknown (<reason>)", never left out.
func Fact(key, value, source string) results.KV {
	return results.KV{Key: key, Value: value + " (from " + source + ")"}
}

func unknown(key string, err error) results.KV {
	return results.KV{Key: key, Value: "unknown (" + err.Error() + ")"}
}

func factOr(key, source string, value string, err error) results.KV {
	if err != nil {
		return unknown(key, err)
	}
	return Fact(key, value, source)
}

// Tuning records what the seed suite's env.txt recorded of the machine's
// tuning: the build's revision, the instance, sockets and NUMA nodes, huge
// pages, transparent huge pages, the CPU frequency governor, the kernel's
// memory knobs and the filesystem holding the data directory.
func Tuning(dataDir string) []results.KV {
	kv := []results.KV{{Key: "mentat_spec_revision", Value: buildinfo.Describe()}}
	if !strings.HasPrefix(kv[0].Value, "unknown") {
		kv[0] = Fact(kv[0].Key, kv[0].Value, "go build info")
	}
	v, err := instanceType()
	kv = append(kv, factOr("instance_type", "/sys/class/dmi/id", v, err))
	v, err = sockets()
	kv = append(kv, factOr("sockets", "/proc/cpuinfo physical id", v, err))
	v, err = numaNodes()
	kv = append(kv, factOr("numa_nodes", "/sys/devices/system/node", v, err))
	v, err = hugePages()
	kv = append(kv, factOr("hugepages", "/proc/meminfo", v, err))
	for _, n := range []string{"enabled", "defrag"} {
		p := "/sys/kernel/mm/transparent_hugepage/" + n
		v, err = bracketed(p)
		kv = append(kv, factOr("transparent_hugepage_"+n, p, v, err))
	}
	v, err = governors()
	kv = append(kv, factOr("cpu_governor", "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor", v, err))
	for _, n := range []string{"swappiness", "dirty_ratio", "dirty_background_ratio", "overcommit_memory"} {
		p := "/proc/sys/vm/" + n
		v, err = readTrim(p)
		kv = append(kv, factOr("vm_"+n, p, v, err))
	}
	return append(kv, dataFS(dataDir)...)
}

func readTrim(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", shortErr(err)
	}
	return strings.TrimSpace(string(b)), nil
}

// shortErr drops the path an *os.PathError repeats.
func shortErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// instanceType is the machine's product name (a cloud instance type such
// as c7i.8xlarge, or a hardware model), with its vendor.
func instanceType() (string, error) {
	name, err := readTrim("/sys/class/dmi/id/product_name")
	if err != nil {
		return "", err
	}
	if vendor, err := readTrim("/sys/class/dmi/id/sys_vendor"); err == nil && vendor != "" {
		return name + ", " + vendor, nil
	}
	return name, nil
}

func sockets() (string, error) {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "", shortErr(err)
	}
	defer f.Close()
	ids := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "physical id" {
			ids[strings.TrimSpace(v)] = true
		}
	}
	if len(ids) == 0 {
		return "", errors.New("/proc/cpuinfo has no physical id lines")
	}
	return fmt.Sprint(len(ids)), nil
}

func numaNodes() (string, error) {
	m, err := filepath.Glob("/sys/devices/system/node/node[0-9]*")
	if err != nil || len(m) == 0 {
		return "", errors.New("no /sys/devices/system/node/node* (kernel without NUMA support)")
	}
	return fmt.Sprint(len(m)), nil
}

// hugePages renders the huge page counters as the seed suite did:
// "HugePages_Total:=0 HugePages_Free:=0 Hugepagesize:=2048".
func hugePages() (string, error) {
	var parts []string
	for _, n := range []string{"HugePages_Total", "HugePages_Free", "Hugepagesize"} {
		v := procField("/proc/meminfo", n)
		if v == "" {
			return "", fmt.Errorf("/proc/meminfo has no %s", n)
		}
		parts = append(parts, n+":="+strings.TrimSuffix(v, " kB"))
	}
	return strings.Join(parts, " "), nil
}

// bracketed returns the selected value of a sysfs choice file
// ("always [madvise] never" -> "madvise").
func bracketed(path string) (string, error) {
	s, err := readTrim(path)
	if err != nil {
		return "", err
	}
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j], nil
		}
	}
	return s, nil
}

// governors lists the distinct CPU frequency governors with their CPU
// counts ("performance x32").
func governors() (string, error) {
	m, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor")
	if len(m) == 0 {
		return "", errors.New("no cpufreq scaling_governor: the kernel does not control CPU frequency here (common in virtual machines)")
	}
	count := map[string]int{}
	for _, p := range m {
		if v, err := readTrim(p); err == nil {
			count[v]++
		}
	}
	var out []string
	for g, n := range count {
		out = append(out, fmt.Sprintf("%s x%d", g, n))
	}
	sort.Strings(out)
	return strings.Join(out, ", "), nil
}

// dataFS describes the filesystem holding the data directory: device,
// type and mount point, mount options, and its size and use (as df does).
func dataFS(dataDir string) []results.KV {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return []results.KV{unknown("data_dir", err), unknown("data_fs", err), unknown("data_fs_options", err), unknown("data_fs_space", err)}
	}
	kv := []results.KV{{Key: "data_dir", Value: abs}}
	// The directory may not exist yet: use its nearest existing parent.
	dir := abs
	for {
		if _, err := os.Stat(dir); err == nil || dir == filepath.Dir(dir) {
			break
		}
		dir = filepath.Dir(dir)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	m, err := mountOf(dir)
	if err != nil {
		kv = append(kv, unknown("data_fs", err), unknown("data_fs_options", err))
	} else {
		kv = append(kv, Fact("data_fs", m.device+" "+m.fstype+" "+m.point, "/proc/mounts"),
			Fact("data_fs_options", m.options, "/proc/mounts"))
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return append(kv, unknown("data_fs_space", fmt.Errorf("statfs %s: %v", dir, err)))
	}
	total := st.Blocks * uint64(st.Bsize)
	free := st.Bfree * uint64(st.Bsize)
	avail := st.Bavail * uint64(st.Bsize)
	used := total - free
	pct := 0.0
	if used+avail > 0 {
		pct = 100 * float64(used) / float64(used+avail)
	}
	return append(kv, Fact("data_fs_space", fmt.Sprintf("size %s used %s avail %s use %.0f%%", gib(total), gib(used), gib(avail), pct), "statfs"))
}

func gib(n uint64) string { return fmt.Sprintf("%.1fG", float64(n)/(1<<30)) }

type mount struct{ device, point, fstype, options string }

// mountOf returns the /proc/mounts entry with the longest mount point
// containing dir (the last one mounted wins on ties, as the kernel does).
func mountOf(dir string) (mount, error) {
	f, err := os.Open("/proc/mounts")
	if err != nil {
		return mount{}, shortErr(err)
	}
	defer f.Close()
	var best mount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) < 4 {
			continue
		}
		m := mount{device: unescapeMount(fl[0]), point: unescapeMount(fl[1]), fstype: fl[2], options: fl[3]}
		if !within(dir, m.point) {
			continue
		}
		if len(m.point) >= len(best.point) {
			best = m
		}
	}
	if best.point == "" {
		return mount{}, fmt.Errorf("no mount in /proc/mounts holds %s", dir)
	}
	return best, nil
}

func within(dir, point string) bool {
	if point == "/" {
		return true
	}
	return dir == point || strings.HasPrefix(dir, point+"/")
}

// unescapeMount undoes /proc/mounts' octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var c int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%03o", &c); err == nil {
				b.WriteByte(byte(c))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
