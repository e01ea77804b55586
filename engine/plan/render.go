package plan

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Points counts the plan's points.
func (p *Plan) Points() int {
	n := 0
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			for _, s := range c.Scenarios {
				n += len(s.Points)
			}
		}
	}
	return n
}

// Render writes the plan as text. The output is deterministic.
func (p *Plan) Render(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Plan: dataset %q; scales %s; backends %s; %d scenarios\n", p.Dataset,
		strings.Join(p.Matrix.Scales, ", "), strings.Join(p.Matrix.Backends, ", "), len(p.Matrix.Scenarios))
	fmt.Fprintf(&b, "Sampling: %s\n", samplingText(p.SpecSampling))
	if p.SpecSampling.Precision > 0 {
		// Adaptive reps stop when their p50 is known: how soon depends on the
		// latencies, which a plan does not measure.
		fmt.Fprintf(&b, "  adaptive: a rep stops between min_s and max_s, once its p50 is known within precision; estimates assume a typical stop (the kind's), within the bounds of every rep stopping at min_s or at max_s\n")
	}
	for _, sp := range p.Scales {
		st := sp.Stats
		about := ""
		if sp.Estimated {
			about = "about " // scaled up from a sample
		}
		fmt.Fprintf(&b, "\nscale %s: %s entities (%s), %s%s datoms (initial %s%s), %s transactions\n",
			sp.Name, Thousands(sum(st.Entities)), countsText(sp.Gen, st.Entities),
			about, Thousands(st.Datoms), Thousands(st.InitialDatoms), historyText(sp.Gen, st.HistoryDatoms), Thousands(st.Txs))
		if len(sp.Marks) > 0 {
			names := make([]string, 0, len(sp.Marks))
			for n := range sp.Marks {
				names = append(names, n)
			}
			sort.Strings(names)
			var parts []string
			for _, n := range names {
				parts = append(parts, fmt.Sprintf("%s = %d", n, sp.Marks[n]))
			}
			fmt.Fprintf(&b, "  marks: %s\n", strings.Join(parts, ", "))
		}
		for _, c := range sp.Cells {
			bc := c.Backend
			npoints := 0
			for _, s := range c.Scenarios {
				npoints += len(s.Points)
			}
			fmt.Fprintf(&b, "  backend %s (driver %s): %d points, estimated %s\n", bc.Name, bc.Driver, npoints, c.Estimate())
			if bc.Load.Declared {
				from := ""
				if c.LoadFrom() != "" {
					from = " (per datom as measured at " + c.LoadFrom() + ")"
				}
				if l := bc.Load; l.Statement != "" {
					fmt.Fprintf(&b, "    load: through the statement %q, %s tx-data, %s datoms per batch, ids %s, %d job(s); after load: %d SQL text(s); estimated %s%s\n",
						firstLine(l.Statement), l.Format, Thousands(int64(l.BatchDatoms)), l.IDs, l.Jobs, len(bc.AfterLoad), c.LoadEstimate(), from)
				} else {
					fmt.Fprintf(&b, "    load: %s, %d job(s), %s rows per transaction; after load: %d SQL text(s); estimated %s%s\n",
						tablesText(bc.Load.Tables), bc.Load.Jobs, Thousands(int64(bc.Load.BatchRows)), len(bc.AfterLoad), c.LoadEstimate(), from)
				}
				if n, src := c.StoreEstimate(); n > 0 {
					fmt.Fprintf(&b, "    store: about %s (%s)\n", results.HumanBytes(n), src)
				}
			} else {
				fmt.Fprintf(&b, "    load: none declared (the store must already hold the dataset)\n")
			}
			if len(bc.Settings) > 0 {
				fmt.Fprintf(&b, "    settings: %s\n", mapText(bc.Settings))
			}
			sessionText(&b, &bc)
			switch bc.ClientModel {
			case ClientsProcess:
				fmt.Fprintf(&b, "    clients: one worker process per client\n")
			case ClientsProcesses:
				fmt.Fprintf(&b, "    clients: %d worker processes sharing them\n", bc.Processes)
			}
			for i, s := range c.Scenarios {
				if len(s.Points) == 0 {
					fmt.Fprintf(&b, "    %d. %s (%s): off (no points as configured)\n", i+1, s.Name, s.Kind)
				} else {
					fmt.Fprintf(&b, "    %d. %s (%s): estimated %s\n", i+1, s.Name, s.Kind, s.Estimate())
				}
				note := s.WorkersNote
				if bc.ClientModel != ClientsGoroutine && !s.InWorkers {
					if note == "" {
						note = fmt.Sprintf("goroutines of this process (%s points run no workers)", s.Kind)
					}
					fmt.Fprintf(&b, "       clients: %s\n", note)
				} else if note != "" && bc.ClientModel != ClientsGoroutine {
					fmt.Fprintf(&b, "       clients: %s\n", note)
				}
				if s.WritesNote != "" {
					fmt.Fprintf(&b, "       writes: %s\n", s.WritesNote)
				}
				if s.SpecSampling != p.SpecSampling {
					fmt.Fprintf(&b, "       sampling: %s\n", samplingText(s.SpecSampling))
				}
				for _, pt := range s.Points {
					fmt.Fprintf(&b, "       %s\n", pt.Describe())
				}
				for _, ck := range s.checks(false) {
					fmt.Fprintf(&b, "       check %s: query %s%s\n", ck.Name, ck.Query, duringNote(ck.Attrs))
				}
				for _, ck := range s.checks(true) {
					fmt.Fprintf(&b, "       check %s: query %s (declared in scenario %s)\n", ck.Name, ck.Query, ck.From)
				}
				for _, q := range s.Unchecked {
					fmt.Fprintf(&b, "       unchecked: query %s (no check of any scenario reads it; its answers are not verified)\n", q)
				}
			}
			for _, o := range c.Off {
				fmt.Fprintf(&b, "    off: %s (%s): %s\n", o.Name, o.Kind, o.Reason)
			}
		}
	}
	fmt.Fprintf(&b, "\nTotal: %d points, estimated %s (%s; checks not included)\n", p.Points(), p.Estimate(), p.estimateSource())
	if n := p.StoreBytes(); n > 0 {
		fmt.Fprintf(&b, "Stores: about %s once every cell has loaded (a run keeps the stores it loads)\n", results.HumanBytes(n))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func samplingText(s SamplingValues) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	text := fmt.Sprintf("warmup %d, min_s %s, min_n %d, max_s %s, reps %d, probe_s %s, check_s %s, load_max_s %s",
		s.Warmup, f(s.MinS), s.MinN, f(s.MaxS), s.Reps, f(s.ProbeS), f(s.CheckS), f(s.LoadMax))
	if s.Precision > 0 {
		text += fmt.Sprintf(", precision %s, precision_p99 %s", f(s.Precision), f(s.PrecisionP99))
	}
	return text + ", order " + s.Order
}

func sum(m map[string]int64) int64 {
	var t int64
	for _, v := range m {
		t += v
	}
	return t
}

func countsText(gen *datagen.Dataset, m map[string]int64) string {
	var parts []string
	for _, e := range gen.Entities {
		parts = append(parts, fmt.Sprintf("%s %s", e.Name, Thousands(m[e.Name])))
	}
	return strings.Join(parts, ", ")
}

func historyText(gen *datagen.Dataset, m map[string]int64) string {
	var b strings.Builder
	for _, h := range gen.History {
		fmt.Fprintf(&b, "; %s %s", h.Name, Thousands(m[h.Name]))
	}
	return b.String()
}

func tablesText(m map[string]string) string {
	var parts []string
	for _, k := range LoadTableKeys {
		parts = append(parts, fmt.Sprintf("%s->%s", k, m[k]))
	}
	return strings.Join(parts, " ")
}

func mapText(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, " ")
}

// checks are the scenario's own checks, or those it borrows.
func (s *Scenario) checks(borrowed bool) []CheckDef {
	if s.Checker == nil {
		return nil
	}
	var out []CheckDef
	for _, ck := range s.Checker.Checks {
		if (ck.From != "") == borrowed {
			out = append(out, ck)
		}
	}
	return out
}

// Thousands formats n with comma separators, as the result files do.
func Thousands(n int64) string { return results.Thousands(n) }

// firstLine is a text's first line that is not blank, cut to 100
// characters, to name a statement on one line.
func firstLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
			if len(l) > 100 {
				l = l[:97] + "..."
			}
			return l
		}
	}
	return ""
}
