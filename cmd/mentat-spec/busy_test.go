package main

import (
	"runtime"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/host"
)

// TestBusyNote: plan says its estimates are a quiet machine's only when
// the load average is above the CPUs.
func TestBusyNote(t *testing.T) {
	for _, tt := range []struct {
		name  string
		load  float64
		known bool
		cpus  int
		want  string
	}{
		{"quiet", 0.5, true, 2, ""},
		{"as many runnable as CPUs", 2, true, 2, ""},
		{"busy", 6.4, true, 2, "note: the machine is busy (load average 6.4 on 2 CPUs)"},
		{"unknown", 0, false, 2, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			busyNote(&b, tt.load, tt.known, tt.cpus)
			if got := b.String(); (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("busyNote = %q, want %q", got, tt.want)
			}
		})
	}
	if l, ok := host.LoadAverage(); runtime.GOOS == "linux" && (!ok || l < 0) {
		t.Errorf("LoadAverage = %v, %v on this machine", l, ok)
	}
}

// withoutBusyNote is stderr without plan's busy-machine note, which a
// test cannot predict on a shared machine.
func withoutBusyNote(stderr string) string {
	var kept []string
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(l, "note: the machine is busy") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "")
}
