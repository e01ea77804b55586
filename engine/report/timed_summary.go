package report

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// writeWindows adds, per sustained stream, a drift line (first against
// last window, throughput and p99) and its windows as a small table. A
// stream run again (an appending run) shows its last run: windows restart
// at 0.
func writeWindows(b *bytes.Buffer, rows []results.WindowRow) error {
	var order []results.Key
	by := map[results.Key][]results.WindowRow{}
	for _, w := range rows {
		k := w.Key()
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		if w.Window == 0 {
			by[k] = nil
		}
		by[k] = append(by[k], w)
	}
	if len(order) == 0 {
		return nil
	}
	b.WriteString("## Sustained windows\n\n")
	for _, k := range order {
		ws := by[k]
		first, last := ws[0], ws[len(ws)-1]
		fmt.Fprintf(b, "%s %s %s, %s x%d: drift over %s: throughput %s -> %s ops/s (%s), p99 %s -> %s ms (%s)\n\n",
			k.Scenario, k.Backend, k.Scale, k.Op, k.Clients, Plural(len(ws), "window", "windows"),
			FormatRate(first.Throughput), FormatRate(last.Throughput), change(first.Throughput, last.Throughput),
			FormatMs(first.P99Ms), FormatMs(last.P99Ms), change(first.P99Ms, last.P99Ms))
		t := table{head: []string{"window", "start s", "n", "p50 ms", "p95 ms", "p99 ms", "max ms", "ops/s", "errors"},
			right: []bool{true, true, true, true, true, true, true, true, true}}
		for _, w := range ws {
			t.rows = append(t.rows, []string{strconv.Itoa(w.Window), FormatSecs(w.StartS, 0), strconv.FormatInt(w.Count, 10),
				FormatMs(w.P50Ms), FormatMs(w.P95Ms), FormatMs(w.P99Ms), FormatMs(w.MaxMs), FormatRate(w.Throughput), strconv.FormatInt(w.Errors, 10)})
		}
		t.write(b)
	}
	return nil
}

// change is the relative change from a to b, "+12.0%".
func change(a, b float64) string {
	if a == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", (b-a)/a*100)
}

// writeOpenLoop adds the offered load of open-loop streams: rate against
// throughput, late and dropped calls (their latencies are in the
// scenario's table, op "read@<rate>").
func writeOpenLoop(b *bytes.Buffer, rows []results.OpenLoopRow) error {
	if len(rows) == 0 {
		return nil
	}
	type key struct {
		results.Key
		rate float64
	}
	rows = results.LastPerKey(rows, func(o results.OpenLoopRow) key { return key{o.Key(), o.Rate} })
	t := table{head: []string{"scenario", "backend", "scale", "clients", "op", "rate/s", "ops/s", "n", "late", "dropped", "errors"},
		right: []bool{false, false, false, true, false, true, true, true, true, true, true}}
	for _, o := range rows {
		t.rows = append(t.rows, []string{o.Scenario, o.Backend, o.Scale, strconv.Itoa(o.Clients), results.RateOp(o.Op, o.Rate),
			FormatRate(o.Rate), FormatRate(o.Throughput), strconv.FormatInt(o.Count, 10), strconv.FormatInt(o.Late, 10),
			strconv.FormatInt(o.Dropped, 10), strconv.FormatInt(o.Errors, 10)})
	}
	b.WriteString("## Open loop\n\n")
	t.write(b)
	return nil
}
