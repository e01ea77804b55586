package resolve

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
	"github.com/mentat-spec/mentat-spec/engine/suggest"
	"github.com/mentat-spec/mentat-spec/engine/writetx"
)

// WriteGenerators checks the write generators scenario sd runs against
// w, the dataset's writes at one scale: each is declared (a misspelt name
// is reported at its `write =` with the name meant), of a form sd's kind
// runs, and no check of sd reads a truth the writes make unknowable.
// Validate and plan both run it, so validate refuses what plan would.
func WriteGenerators(w *writes.Writes, sd *config.ScenarioBlock) hcl.Diagnostics {
	wg, ok := sd.Def.(kind.WriteGenerators)
	if !ok {
		return nil
	}
	var diags hcl.Diagnostics
	for _, name := range wg.WriteGenerators() {
		decl, ok := w.Decl(name)
		if !ok {
			declared := w.Names()
			detail := fmt.Sprintf("Scenario %q runs write %q, which the dataset does not declare (declared: %v).%s",
				sd.Name, name, declared, suggest.DidYouMean(name, declared))
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown write generator",
				Detail: detail, Subject: writeSubject(sd, name)})
			continue
		}
		if fc, ok := sd.Def.(kind.WriteFormChecker); ok {
			if err := fc.CheckWrite(decl); err != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Write generator not supported",
					Detail: fmt.Sprintf("Scenario %q runs write %q: %v.", sd.Name, name, err), Subject: writeSubject(sd, name)})
				continue
			}
		}
		stale := map[string]bool{}
		for _, t := range truth.Stale(w, name) {
			stale[t] = true
		}
		for _, ck := range sd.Checks {
			for _, t := range TruthRefs(ck) {
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

// writeSubject is where scenario sd names write generator name: the
// first operation's `write =`, else the scenario (a kind whose generator
// is an attribute of its own).
func writeSubject(sd *config.ScenarioBlock, name string) *hcl.Range {
	if wr, ok := sd.Def.(kind.WriteRanger); ok {
		if r, ok := wr.WriteRange(name); ok {
			return r.Ptr()
		}
	}
	if od, ok := sd.Def.(kind.Operationer); ok {
		for _, o := range od.Operations() {
			if o.Write == name && o.WriteRange.Filename != "" {
				return o.WriteRange.Ptr()
			}
		}
	}
	return sd.DeclRange.Ptr()
}

// TruthRefs lists the truth.NAME a check's attributes read.
func TruthRefs(ck *config.CheckBlock) []string {
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

// writeOpParams checks that every parameter the statements of sd's write
// operations use is one the write binds: a statement using another fails
// at every call, so it is refused before anything runs. queries are the
// cell's queries in its dialect.
func writeOpParams(s *config.Spec, sd *config.ScenarioBlock, w *writes.Writes, gen *datagen.Dataset, queries map[string]*CellQuery) hcl.Diagnostics {
	od, ok := sd.Def.(kind.Operationer)
	if !ok {
		return nil
	}
	var diags hcl.Diagnostics
	for _, o := range od.Operations() {
		if !o.IsWrite() {
			continue
		}
		if _, ok := w.Decl(o.Write); !ok {
			continue // WriteGenerators reports it
		}
		allowed := writetx.ParamsOf(w, o.Write, gen)
		names := make([]string, 0, len(allowed.Allowed))
		for n := range allowed.Allowed {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, qn := range []string{o.Read, o.Query} {
			rq, ok := queries[qn]
			if qn == "" || !ok {
				continue
			}
			for _, st := range sqltext.Statements(rq.SQL) {
				for _, pn := range sqltext.Params(st) {
					if allowed.Allowed[pn] {
						continue
					}
					detail := fmt.Sprintf("Operation %q of scenario %q runs query %q, whose statement %q uses :%s, which write %q does not bind: %s.%s",
						o.Name, sd.Name, qn, oneLine(st), pn, o.Write, allowed.Text, suggest.DidYouMean(pn, names))
					diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unbound query parameter",
						Detail: detail, Subject: querySubject(s, qn)})
				}
			}
		}
	}
	return diags
}

// querySubject is a query's sql attribute, else its block.
func querySubject(s *config.Spec, name string) *hcl.Range {
	q := s.Query(name)
	if q == nil {
		return nil
	}
	if q.SQL != nil {
		return q.SQL.Range().Ptr()
	}
	return q.DeclRange.Ptr()
}

// oneLine shortens a statement for a diagnostic: whitespace folded, at
// most 120 characters.
func oneLine(st string) string {
	st = strings.Join(strings.Fields(st), " ")
	if len(st) > 120 {
		st = st[:117] + "..."
	}
	return st
}

// boundQueryParams refuses a parameter a kind's bound queries use but the
// kind does not bind (write_mixed's write and verify queries).
func boundQueryParams(s *config.Spec, sd *config.ScenarioBlock, queries map[string]*CellQuery) hcl.Diagnostics {
	qb, ok := sd.Def.(kind.QueryBinder)
	if !ok {
		return nil
	}
	var diags hcl.Diagnostics
	for _, bq := range qb.BoundQueries() {
		rq, ok := queries[bq.Query]
		if !ok {
			continue
		}
		for _, st := range sqltext.Statements(rq.SQL) {
			for _, pn := range sqltext.Params(st) {
				if slices.Contains(bq.Allowed, pn) {
					continue
				}
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unbound query parameter",
					Detail: fmt.Sprintf("Scenario %q runs query %q, whose statement %q uses :%s: %s.%s",
						sd.Name, bq.Query, oneLine(st), pn, bq.Text, suggest.DidYouMean(pn, bq.Allowed)),
					Subject: querySubject(s, bq.Query)})
			}
		}
	}
	return diags
}
