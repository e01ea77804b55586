package adapter

import (
	"context"

	"github.com/mentat-spec/mentat-spec/drivers"
)

var _ drivers.EvidenceCollector = (*backend)(nil)

// EvidenceSource is the source of the adapter's facts in evidence.csv.
const EvidenceSource = "adapter"

// StartEvidence implements drivers.EvidenceCollector: the statements'
// counters now. The store's own time (store_us) is the adapter's
// counterpart of a server's execution time, so a point's latency split
// puts it beside the pipe's round-trip floor and the rest.
func (b *backend) StartEvidence(context.Context) (drivers.EvidenceProbe, error) {
	_, before := b.stats.snapshot()
	return &probe{b: b, before: before, timeouts: b.timeouts.Load(), restarts: b.restarts.Load()}, nil
}

var _ drivers.EvidenceRebaser = (*probe)(nil)

// Rebase takes the statements' counters, the cuts and the restarts again.
func (p *probe) Rebase(context.Context) error {
	_, p.before = p.b.stats.snapshot()
	p.timeouts, p.restarts = p.b.timeouts.Load(), p.b.restarts.Load()
	return nil
}

type probe struct {
	b                  *backend
	before             map[string]counts
	timeouts, restarts int64
}

// Stop returns, per statement the stretch called, its calls and total
// round trip, and where the adapter timed every call in the store, the
// store's total (exec_ms, the split's execution) and its p50 and p99;
// then the calls cut by probe_s and the fresh adapters started for them.
func (p *probe) Stop(context.Context) ([]drivers.Evidence, error) {
	ord, after := p.b.stats.snapshot()
	var out []drivers.Evidence
	for _, sql := range ord {
		c := after[sql].minus(p.before[sql])
		if c.calls <= 0 {
			continue // a statement the stretch did not run
		}
		q := oneLine(sql, 0)
		fact := func(name string, v float64, unit string) {
			out = append(out, drivers.Evidence{Source: EvidenceSource, Query: q, Name: name, Value: v, Unit: unit})
		}
		fact(drivers.EvidenceCalls, float64(c.calls), "calls")
		fact("round_trip_ms", float64(c.roundTrip)/1e6, "ms")
		// A store time for some calls only would read as a faster store.
		if c.timed == c.calls {
			fact(drivers.EvidenceExecMs, float64(c.store)/1e6, "ms")
			fact("store_p50_ms", c.storeQuantile(0.50)/1e6, "ms")
			fact("store_p99_ms", c.storeQuantile(0.99)/1e6, "ms")
		}
	}
	out = append(out,
		drivers.Evidence{Source: EvidenceSource, Name: "cut_calls", Value: float64(p.b.timeouts.Load() - p.timeouts), Unit: "calls"},
		drivers.Evidence{Source: EvidenceSource, Name: "fresh_adapters", Value: float64(p.b.restarts.Load() - p.restarts), Unit: "processes"})
	return out, nil
}
