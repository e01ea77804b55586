// Package memuse measures the engine's memory by phase of a run: the
// kernel's peak resident set of the process (reset at each phase's start,
// so each phase has its own peak) and the most memory the Go runtime held,
// sampled. The runner names the phases; the rows go to memory.csv.
package memuse

import (
	"runtime/metrics"
	"sync"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// sampleEvery is how often the Go runtime's memory is read: often enough
// to catch a phase's peak (a heap grows over seconds, not microseconds),
// rarely enough to cost nothing (a read is about a microsecond).
const sampleEvery = 100 * time.Millisecond

// Meter times phases and their memory. One phase is open at a time; a
// Meter is safe for concurrent use.
type Meter struct {
	emit func(results.MemoryRow)

	mu      sync.Mutex
	cur     results.MemoryRow
	open    bool
	resetOK bool
	peakGo  int64
	samples []metrics.Sample
	stop    chan struct{}
	done    chan struct{}
	closing sync.Once
}

// Start begins sampling; emit receives each phase's row when it ends.
func Start(emit func(results.MemoryRow)) *Meter {
	m := &Meter{emit: emit, stop: make(chan struct{}), done: make(chan struct{}),
		samples: []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}}
	go m.sample()
	return m
}

func (m *Meter) sample() {
	defer close(m.done)
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.mu.Lock()
			m.readGo()
			m.mu.Unlock()
		}
	}
}

// readGo folds the Go runtime's memory now into the phase's peak. The
// caller holds mu.
func (m *Meter) readGo() {
	metrics.Read(m.samples)
	var held int64
	if s := m.samples[0]; s.Value.Kind() == metrics.KindUint64 {
		held = int64(s.Value.Uint64())
	}
	if s := m.samples[1]; s.Value.Kind() == metrics.KindUint64 {
		held -= int64(s.Value.Uint64()) // returned to the OS: not resident
	}
	m.peakGo = max(m.peakGo, held)
}

// Phase ends the open phase and starts one. A nil Meter measures nothing.
func (m *Meter) Phase(scale, backend, phase string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.endLocked()
	m.resetOK = resetPeak() == nil
	m.peakGo = 0
	m.readGo()
	m.cur = results.MemoryRow{Scale: scale, Backend: backend, Phase: phase, Start: time.Now()}
	m.open = true
}

// End ends the open phase, if any.
func (m *Meter) End() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.endLocked()
}

func (m *Meter) endLocked() {
	if !m.open {
		return
	}
	m.open = false
	m.readGo()
	row := m.cur
	row.Seconds = time.Since(row.Start).Seconds()
	row.PeakGo = m.peakGo
	if st, err := readStatus(); err == nil {
		row.PeakRSS, row.EndRSS = st.peak, st.now
		row.PeakOf = results.PeakOfProcess
		if m.resetOK {
			row.PeakOf = results.PeakOfPhase
		}
	}
	m.emit(row)
}

// Close ends the open phase and stops sampling; a second Close does
// nothing more.
func (m *Meter) Close() {
	if m == nil {
		return
	}
	m.End()
	m.closing.Do(func() { close(m.stop) })
	<-m.done
}
