package memuse

import (
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// sink collects a meter's rows.
type sink struct {
	mu   sync.Mutex
	rows []results.MemoryRow
}

func (s *sink) emit(r results.MemoryRow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows = append(s.rows, r)
}

var keep [][]byte

// TestPhasePeaks: a phase that holds 64 MiB has a peak of at least that,
// in the kernel's resident set and in the Go runtime's, and the phase
// after it, which starts once that memory is freed, a smaller one: each phase has its own
// peak, not the process's.
func TestPhasePeaks(t *testing.T) {
	var s sink
	m := Start(s.emit)
	const big = 64 << 20
	m.Phase("xs", "sqlite", results.PhaseLoad)
	for i := 0; i < big>>20; i++ {
		b := make([]byte, 1<<20)
		for j := range b {
			b[j] = byte(j) // touched, so resident
		}
		keep = append(keep, b)
	}
	time.Sleep(3 * sampleEvery)
	keep = nil
	debug.FreeOSMemory()
	m.Phase("xs", "sqlite", results.PhaseMeasure)
	time.Sleep(3 * sampleEvery)
	m.Close()
	m.End() // no phase open: nothing more

	if len(s.rows) != 2 {
		t.Fatalf("got %d rows, want 2: %+v", len(s.rows), s.rows)
	}
	load, measure := s.rows[0], s.rows[1]
	if load.Phase != results.PhaseLoad || measure.Phase != results.PhaseMeasure || load.Scale != "xs" || load.Backend != "sqlite" {
		t.Fatalf("rows name the wrong phases: %+v", s.rows)
	}
	if load.Seconds < (3 * sampleEvery).Seconds() {
		t.Errorf("load lasted %.3f s, want at least %.3f", load.Seconds, (3 * sampleEvery).Seconds())
	}
	if load.PeakGo < big {
		t.Errorf("load's Go peak %d bytes, want at least %d", load.PeakGo, big)
	}
	if runtime.GOOS != "linux" {
		return
	}
	if load.PeakRSS < big || load.EndRSS <= 0 {
		t.Errorf("load's resident peak %d (end %d), want at least %d", load.PeakRSS, load.EndRSS, big)
	}
	if measure.PeakOf == results.PeakOfPhase && measure.PeakRSS >= load.PeakRSS {
		t.Errorf("measure's peak %d is not below load's %d although the kernel's peak was reset", measure.PeakRSS, load.PeakRSS)
	}
	if measure.PeakGo >= load.PeakGo {
		t.Errorf("measure's Go peak %d is not below load's %d", measure.PeakGo, load.PeakGo)
	}
}
