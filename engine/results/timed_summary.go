package results

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
)

// ReadWindows reads windows.csv of dir in file order.
func ReadWindows(dir string) ([]WindowRow, error) {
	var rows []WindowRow
	err := readCSV(filepath.Join(dir, WindowsFile), WindowsHeader, func(r *record) {
		rows = append(rows, WindowRow{
			Row: Row{Scenario: r.str("scenario"), Backend: r.str("backend"), Scale: r.str("scale"),
				Clients: int(r.int("clients")), Op: r.str("op"), Count: r.int("count"),
				P50Ms: r.float("p50_ms"), P95Ms: r.float("p95_ms"), P99Ms: r.float("p99_ms"), MaxMs: r.float("max_ms"),
				Throughput: r.float("throughput_ops_s"), Errors: r.int("errors")},
			Window: int(r.int("window")), StartS: r.float("start_s"), EndS: r.float("end_s"), Late: r.int("late"),
		})
	})
	return rows, err
}

// writeWindows adds, per sustained stream, a drift line (first against
// last window, throughput and p99) and its windows as a small table. A
// stream run again (an appending run) shows its last run: windows restart
// at 0.
func writeWindows(b *bytes.Buffer, dir string) error {
	rows, err := ReadWindows(dir)
	if err := optional(err); err != nil {
		return err
	}
	var order []Key
	by := map[Key][]WindowRow{}
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
		fmt.Fprintf(b, "%s %s %s, %s x%d: drift over %d windows: throughput %s -> %s ops/s (%s), p99 %s -> %s ms (%s)\n\n",
			k.Scenario, k.Backend, k.Scale, k.Op, k.Clients, len(ws),
			fmtRate(first.Throughput), fmtRate(last.Throughput), change(first.Throughput, last.Throughput),
			fmtMs(first.P99Ms), fmtMs(last.P99Ms), change(first.P99Ms, last.P99Ms))
		t := table{head: []string{"window", "start s", "n", "p50 ms", "p95 ms", "p99 ms", "max ms", "ops/s", "errors"},
			right: []bool{true, true, true, true, true, true, true, true, true}}
		for _, w := range ws {
			t.rows = append(t.rows, []string{strconv.Itoa(w.Window), fmtSecs(w.StartS, 0), strconv.FormatInt(w.Count, 10),
				fmtMs(w.P50Ms), fmtMs(w.P95Ms), fmtMs(w.P99Ms), fmtMs(w.MaxMs), fmtRate(w.Throughput), strconv.FormatInt(w.Errors, 10)})
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

// ReadOpenLoop reads openloop.csv of dir in file order.
func ReadOpenLoop(dir string) ([]OpenLoopRow, error) {
	var rows []OpenLoopRow
	err := readCSV(filepath.Join(dir, OpenLoopFile), OpenLoopHeader, func(r *record) {
		rows = append(rows, OpenLoopRow{
			Row: Row{Scenario: r.str("scenario"), Backend: r.str("backend"), Scale: r.str("scale"),
				Clients: int(r.int("clients")), Op: r.str("op"), Count: r.int("count"),
				Throughput: r.float("throughput_ops_s"), Errors: r.int("errors")},
			Rate: r.float("rate_ops_s"), Late: r.int("late"), Dropped: r.int("dropped"),
		})
	})
	return rows, err
}

// writeOpenLoop adds the offered load of open-loop streams: rate against
// throughput, late and dropped calls (their latencies are in the
// scenario's table, op "read@<rate>").
func writeOpenLoop(b *bytes.Buffer, dir string) error {
	rows, err := ReadOpenLoop(dir)
	if err := optional(err); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	type key struct {
		Key
		rate float64
	}
	rows = lastPerKey(rows, func(o OpenLoopRow) key { return key{o.Key(), o.Rate} })
	t := table{head: []string{"scenario", "backend", "scale", "clients", "op", "rate/s", "ops/s", "n", "late", "dropped", "errors"},
		right: []bool{false, false, false, true, false, true, true, true, true, true, true}}
	for _, o := range rows {
		t.rows = append(t.rows, []string{o.Scenario, o.Backend, o.Scale, strconv.Itoa(o.Clients), RateOp(o.Op, o.Rate),
			fmtRate(o.Rate), fmtRate(o.Throughput), strconv.FormatInt(o.Count, 10), strconv.FormatInt(o.Late, 10),
			strconv.FormatInt(o.Dropped, 10), strconv.FormatInt(o.Errors, 10)})
	}
	b.WriteString("## Open loop\n\n")
	t.write(b)
	return nil
}
