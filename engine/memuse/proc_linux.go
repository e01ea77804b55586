package memuse

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

type status struct{ peak, now int64 }

// readStatus reads the process's peak and current resident set
// (VmHWM, VmRSS) from /proc/self/status.
func readStatus() (status, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return status{}, err
	}
	var st status
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Bytes()
		for _, f := range []struct {
			name string
			dst  *int64
		}{{"VmHWM:", &st.peak}, {"VmRSS:", &st.now}} {
			if rest, ok := bytes.CutPrefix(line, []byte(f.name)); ok {
				kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte("kB")))), 10, 64)
				if err != nil {
					return status{}, fmt.Errorf("memuse: %s in /proc/self/status: %w", f.name, err)
				}
				*f.dst = kb << 10
			}
		}
	}
	if st.peak == 0 {
		return status{}, fmt.Errorf("memuse: no VmHWM in /proc/self/status")
	}
	return st, nil
}

// resetPeak sets the kernel's peak resident set to the current one
// (clear_refs 5, Linux 4.0 and later), so the next read is this phase's.
func resetPeak() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
