package compare

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// PointOrder says how one point's reps of two variants ran, read from the
// run's raw.csv: rows are appended as each rep is measured, so their
// order is the order the reps ran in. Only reps that alternated (A, B,
// A, B, ...) shared the machine's drift and neighbours; reps that ran
// back to back are two samples from different moments, as two runs are.
type PointOrder struct {
	Alternated bool
	// How says what the reps did, for the verdict ("reps alternated",
	// "the 5 reps of a ran before the 5 of b", ...).
	How string
}

// label is the order as a verdict names it.
func (o PointOrder) label() string {
	if o.Alternated {
		return "paired: " + o.How
	}
	return "unpaired (two samples): " + o.How
}

// repOrders reads, for each point two backends a and b of rows share,
// whether their reps alternated. The points are keyed with Backend set
// to label, as Variants writes them. A rep measured twice (a resumed run)
// counts at its last measurement, as the verdict does.
func repOrders(rows []results.Row, a, b, label string) map[results.Key]PointOrder {
	type repKey struct {
		k       results.Key
		backend string
		rep     int
	}
	at := map[repKey]int{}
	for i, r := range rows {
		if r.Op == results.OpCeiling || r.Backend != a && r.Backend != b {
			continue
		}
		k := r.Key()
		k.Backend = label
		at[repKey{k, r.Backend, r.Rep}] = i
	}
	type run struct {
		backend string
		pos     int
	}
	seq := map[results.Key][]run{}
	for rk, pos := range at {
		seq[rk.k] = append(seq[rk.k], run{rk.backend, pos})
	}
	out := map[results.Key]PointOrder{}
	for k, s := range seq {
		sort.Slice(s, func(i, j int) bool { return s[i].pos < s[j].pos })
		names := make([]string, len(s))
		for i, r := range s {
			names[i] = r.backend
		}
		out[k] = orderOf(names, a, b)
	}
	return out
}

// orderOf judges one point's sequence of backends, rep by rep.
func orderOf(seq []string, a, b string) PointOrder {
	n := map[string]int{}
	alternated := true
	for i, s := range seq {
		n[s]++
		if i > 0 && seq[i-1] == s {
			alternated = false
		}
	}
	switch {
	case n[a] == 0 || n[b] == 0:
		return PointOrder{How: "measured on one variant only"}
	case alternated && n[a] == n[b]:
		return PointOrder{Alternated: true, How: "reps alternated"}
	}
	first, second := seq[0], a
	if first == a {
		second = b
	}
	switch {
	case blocks(seq) == 2:
		return PointOrder{How: fmt.Sprintf("the %d reps of %s ran before the %d of %s", n[first], first, n[second], second)}
	case n[a] != n[b]:
		return PointOrder{How: fmt.Sprintf("%d reps of %s, %d of %s", n[a], a, n[b], b)}
	}
	return PointOrder{How: "reps in the order " + strings.Join(seq, " ")}
}

// blocks counts the runs of equal backends in seq.
func blocks(seq []string) int {
	n := 0
	for i := range seq {
		if i == 0 || seq[i] != seq[i-1] {
			n++
		}
	}
	return n
}

// pairingText says, for a verdict of two variants, on which points the
// reps alternated and on which they did not: what the run did, point by
// point, never the sampling order it was asked for.
func pairingText(vs []MetricVerdict) string {
	var paired, unpaired []string
	seen := map[string]bool{}
	for _, v := range vs {
		if seen[v.What] || v.Order == nil {
			continue
		}
		seen[v.What] = true
		if v.Order.Alternated {
			paired = append(paired, v.What)
		} else {
			unpaired = append(unpaired, v.What)
		}
	}
	switch {
	case len(paired) == 0 && len(unpaired) == 0:
		return "run-to-run variation: none estimated: both variants are of one run"
	case len(unpaired) == 0:
		return fmt.Sprintf("run-to-run variation: none: both variants are of one run and their reps alternated on every point (%d), so the machine's drift and neighbours hit both alike", len(paired))
	case len(paired) == 0:
		return fmt.Sprintf("run-to-run variation: not estimated: both variants are of one run, but on none of their %s did the reps alternate (each point below says how they ran): "+
			"each is judged as two samples from different moments of the run, as two runs are, assuming no drift between them beyond the reps' spread", report.Plural(len(unpaired), "point", "points"))
	}
	return fmt.Sprintf("run-to-run variation: none on the %s whose reps alternated; not estimated on the %d whose reps did not (%s): "+
		"those are judged as two samples from different moments of the run, as two runs are, assuming no drift between them beyond the reps' spread",
		report.Plural(len(paired), "point", "points"), len(unpaired), strings.Join(unpaired, "; "))
}
