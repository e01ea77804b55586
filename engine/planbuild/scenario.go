package planbuild

import (
	"fmt"
	"slices"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/zclconf/go-cty/cty"
)

// offReason says why scenario sd does not run on backend at scale, ""
// when it runs.
func offReason(spec *config.Spec, sd *config.ScenarioBlock, backend string, skip []string, scale string) string {
	switch {
	case !slices.Contains(spec.Matrix.ScenarioNames, sd.Name):
		return "not selected"
	case !sd.RunsOn(backend):
		return "not declared for this backend"
	case slices.Contains(skip, sd.Name):
		return "skipped by this backend"
	}
	if f, ok := sd.Def.(kind.ScaleFilter); ok && !f.RunsOnScale(scale) {
		return "not run at this scale"
	}
	return ""
}

// borrowChecks finds, for each query sd runs that none of its checks
// reads, the checks other read-only scenarios on the backend declare for
// it, or, when none does, the checks scenarios that write declare for it
// (they compare with the truth the writes advance, which is the truth
// when the borrowed check runs), so a query a check reads anywhere is
// never called unchecked. A scenario that writes borrows nothing and is
// not marked: its statements include writes, which the checks after them
// verify through that truth.
func borrowChecks(spec *config.Spec, sd *config.ScenarioBlock, backend string) (borrowed []plan.CheckDef, unchecked []string) {
	if sd.Def.Writes() {
		return nil, nil
	}
	covered := map[string]bool{}
	for _, ck := range sd.Checks {
		covered[ck.Query] = true
	}
	from := func(q string, writers bool) []plan.CheckDef {
		var out []plan.CheckDef
		for _, other := range spec.Scenarios {
			if other == sd || other.Def == nil || other.Def.Writes() != writers || !other.RunsOn(backend) {
				continue
			}
			for _, ck := range other.Checks {
				if ck.Query == q {
					out = append(out, plan.CheckDef{Name: ck.Name, Query: ck.Query, Attrs: ck.Attrs, From: other.Name})
				}
			}
		}
		return out
	}
	for _, q := range sd.Def.Queries() {
		if covered[q] {
			continue
		}
		covered[q] = true
		found := from(q, false)
		if len(found) == 0 {
			found = from(q, true)
		}
		if len(found) == 0 {
			unchecked = append(unchecked, q)
		}
		borrowed = append(borrowed, found...)
	}
	return borrowed, unchecked
}

func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

func toSampling(v config.SamplingValues) plan.SamplingPlan {
	return plan.SamplingPlan{
		Sampling: measure.Sampling{Warmup: v.Warmup, MinDuration: secs(v.MinS), MinSamples: v.MinN,
			MaxDuration: secs(v.MaxS), Reps: v.Reps, Probe: secs(v.ProbeS),
			Precision: v.Precision, PrecisionP99: v.PrecisionP99},
		Check: secs(v.CheckS), LoadMax: secs(v.LoadMax), Interleaved: v.Order != config.OrderSequential, Paired: v.Order == config.OrderPaired,
		Evidence: v.Evidence,
	}
}

// storeCost is the driver's measured cost per datom, nil when it states
// none (or the driver is unknown).
func storeCost(d resolve.Driver) *drivers.StoreCost {
	se, ok := d.(drivers.StoreEstimator)
	if !ok {
		return nil
	}
	c := se.StoreCost()
	if c.SecondsPerDatom <= 0 {
		return nil
	}
	return &c
}

// writesNote says how a scenario's write operations reach the database
// of driver: each client on its own session, or through fewer writing
// sessions shared by the clients (the stream's writers, or what the
// database allows).
func writesNote(d resolve.Driver, driver string, opts map[string]string, sd *config.ScenarioBlock) string {
	od, ok := sd.Def.(kind.Operationer)
	if !ok || !kind.OpsWrite(od.Operations()) {
		return ""
	}
	limit, why := drivers.WriteLimit(d, opts)
	writers := 0
	for _, o := range od.Operations() {
		if o.IsWrite() {
			writers = max(writers, o.Writers)
		}
	}
	sessions := func(n int) string {
		if n == 1 {
			return "one writing session shared by the clients"
		}
		return fmt.Sprintf("%d writing sessions shared by the clients", n)
	}
	switch {
	case limit > 0 && (writers == 0 || writers > limit):
		txs := "one writing transaction"
		if limit != 1 {
			txs = fmt.Sprintf("%d writing transactions", limit)
		}
		s := fmt.Sprintf("%s (%s runs %s at a time", sessions(limit), driver, txs)
		if why != "" {
			s = fmt.Sprintf("%s (%s", sessions(limit), why)
		}
		if writers > limit {
			s += fmt.Sprintf("; writers = %d asked", writers)
		}
		return s + ")"
	case writers > 0:
		return fmt.Sprintf("%s (writers = %d)", sessions(writers), writers)
	}
	return "each client writes on its own session"
}

// specFiles copies the text of the spec's parsed HCL files, which a
// check's source is quoted from.
func specFiles(spec *config.Spec) map[string][]byte {
	out := map[string][]byte{}
	if spec.Parser == nil {
		return out
	}
	for name, f := range spec.Parser.Files() {
		out[name] = f.Bytes
	}
	return out
}

// secrets are the string values of the spec's sensitive variables, so a
// description of the plan can redact options built from them.
func secrets(spec *config.Spec) []string {
	var out []string
	for _, v := range spec.Variables {
		if v.Sensitive && !v.Value.IsNull() && v.Value.IsKnown() && v.Value.Type() == cty.String {
			if s := v.Value.AsString(); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// inputs are the files the spec read, by path.
func inputs(spec *config.Spec) []plan.Input {
	var out []plan.Input
	for _, in := range spec.Inputs() {
		out = append(out, plan.Input{Path: in.Path, SHA256: in.SHA256})
	}
	return out
}
