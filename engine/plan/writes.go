package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

// checkWriteGenerators reports, at plan time, a scenario that runs a write
// generator the dataset does not declare, and a check of it that reads a
// truth its writes make unknowable (the generator cannot follow them).
func checkWriteGenerators(sp *ScalePlan, sd *config.ScenarioBlock) hcl.Diagnostics {
	wg, ok := sd.Def.(kind.WriteGenerators)
	if !ok {
		return nil
	}
	var diags hcl.Diagnostics
	for _, name := range wg.WriteGenerators() {
		if _, ok := sp.Writes.Decl(name); !ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown write generator",
				Detail: fmt.Sprintf("Scenario %q runs write %q, which the dataset does not declare (declared: %v).", sd.Name, name, sp.Writes.Names()), Subject: sd.DeclRange.Ptr()})
			continue
		}
		if fc, ok := sd.Def.(kind.WriteFormChecker); ok {
			decl, _ := sp.Writes.Decl(name)
			if err := fc.CheckWrite(decl); err != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Write generator not supported",
					Detail: fmt.Sprintf("Scenario %q runs write %q: %v.", sd.Name, name, err), Subject: sd.DeclRange.Ptr()})
				continue
			}
		}
		stale := map[string]bool{}
		for _, t := range truth.Stale(sp.Writes, name) {
			stale[t] = true
		}
		for _, ck := range sd.Checks {
			for _, t := range truthRefs(ck) {
				if stale[t] {
					diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Check cannot be true after the writes",
						Detail:  fmt.Sprintf("Check %q of scenario %q reads truth.%s, which writes of %q change in a way the generator cannot follow; check another truth.", ck.Name, sd.Name, t, name),
						Subject: ck.DeclRange.Ptr()})
				}
			}
		}
	}
	return diags
}

// checkReaders refuses a scenario that writes on a backend whose reader
// sessions cannot see writes (drivers.ReadOnlyReaders).
func checkReaders(drv resolve.Drivers, driver, backend string, opts map[string]string, s *Scenario, sd *config.ScenarioBlock) hcl.Diagnostics {
	if !s.Writes {
		return nil
	}
	d, ok := drv.Driver(driver)
	if !ok {
		return nil
	}
	rr, ok := d.(drivers.ReadOnlyReaders)
	if !ok {
		return nil
	}
	why, refuse := rr.ReadersRefuseWrites(opts)
	if !refuse {
		return nil
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Scenario writes on a read-only backend",
		Detail:  fmt.Sprintf("Scenario %q writes to the store, and backend %q cannot run it: %s. Run it on another backend, or skip it there (skip_scenarios).", sd.Name, backend, why),
		Subject: sd.DeclRange.Ptr()}}
}

// truthRefs lists the truth.NAME a check's attributes read.
func truthRefs(ck *config.CheckBlock) []string {
	seen := map[string]bool{}
	for _, a := range ck.Attrs {
		for _, tr := range a.Expr.Variables() {
			if tr.RootName() != "truth" || len(tr) < 2 {
				continue
			}
			if at, ok := tr[1].(hcl.TraverseAttr); ok {
				seen[at.Name] = true
			} else if ix, ok := tr[1].(hcl.TraverseIndex); ok && ix.Key.Type().FriendlyName() == "string" {
				seen[ix.Key.AsString()] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Advance returns the truth after writes 0..n-1 of generator committed,
// computed from the generator without reading the database. A truth the
// writes make unknowable is left out (a check reading it then fails to
// evaluate) and named in the error.
func (t *Truth) Advance(w *writes.Writes, generator string, n int64) (*Truth, error) {
	adv, err := truth.Advance(t.Values, w, generator, n)
	if adv == nil {
		return nil, err
	}
	nt, nerr := NewTruth(adv)
	if nerr != nil {
		return nil, nerr
	}
	if err != nil {
		return nt, fmt.Errorf("after %d write(s) of %s: %s", n, generator, strings.TrimPrefix(err.Error(), "datagen: "))
	}
	return nt, nil
}

// Operationer is implemented by definitions whose streams hold
// operations.
type Operationer interface {
	Operations() []kind.Operation
}

// writesNote says how a scenario's write operations reach the database
// of driver: each client on its own session, or through fewer writing
// sessions shared by the clients (the stream's writers, or what the
// database allows).
func writesNote(drv resolve.Drivers, driver string, sd *config.ScenarioBlock) string {
	od, ok := sd.Def.(Operationer)
	if !ok || !kind.OpsWrite(od.Operations()) {
		return ""
	}
	limit := 0
	if d, ok := drv.Driver(driver); ok {
		if wl, ok := d.(drivers.WriteLimiter); ok {
			limit = wl.WritingConnections()
		}
	}
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
		s := fmt.Sprintf("%s (%s runs %s at a time", sessions(limit), driver, plural(limit, "writing transaction"))
		if writers > limit {
			s += fmt.Sprintf("; writers = %d asked", writers)
		}
		return s + ")"
	case writers > 0:
		return fmt.Sprintf("%s (writers = %d)", sessions(writers), writers)
	}
	return "each client writes on its own session"
}

// AdvanceJournal returns the truth after every write in j committed,
// computed from the generators without reading the database. A truth the
// writes make unknowable is left out and named in the error.
func (t *Truth) AdvanceJournal(w *writes.Writes, j *writes.Journal) (*Truth, error) {
	adv, err := truth.AdvanceJournal(t.Values, w, j)
	if adv == nil {
		return nil, err
	}
	nt, nerr := NewTruth(adv)
	if nerr != nil {
		return nil, nerr
	}
	if err != nil {
		return nt, fmt.Errorf("after %d committed write(s) of %s: %s", j.Len(), strings.Join(j.Generators(), ", "), strings.TrimPrefix(err.Error(), "datagen: "))
	}
	return nt, nil
}

// plural is "one thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "one " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
