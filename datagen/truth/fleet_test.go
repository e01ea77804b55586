package truth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
	"github.com/mentat-spec/mentat-spec/datagen/export"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
)

// TestFleetFiles writes the fleet at several shard counts (byte-identical),
// then checks the files against the generator: stats, values as of every
// mark, the structure of dependent entities, the process history's
// order and time stamps, and the truths computed from the files alone.
func TestFleetFiles(t *testing.T) {
	ds := datagentest.FinishedFleet(t, 400)
	ref := writeTo(t, ds, 1, true)
	for _, shards := range []int{3, 7} {
		dir := writeTo(t, datagentest.FinishedFleet(t, 400), shards, true)
		for _, p := range []string{"datoms-text-*.csv", "datoms-int-*.csv", "tx-*.edn", "tx.csv", "truth.json"} {
			if !bytes.Equal(datagentest.Concat(t, ref, p), datagentest.Concat(t, dir, p)) {
				t.Errorf("%d shards: %s differs from the 1-shard run", shards, p)
			}
		}
	}
	r := loadReplica(t, ref)
	tr, err := truth.Compute(context.Background(), ds, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkStats(t, ds, r, tr.Stats)
	checkValueFunc(t, ds, r)

	st := r.state(t, -1)
	one := func(e int64, ident string) string {
		for v := range st[ea{e, r.byIdent[ident].id}] {
			return v
		}
		return ""
	}
	num := func(e int64, ident string) int64 { n, _ := strconv.ParseInt(one(e, ident), 10, 64); return n }
	vanBase, routeBase, stopBase := int64(2)*datagen.EntityBase, int64(3)*datagen.EntityBase, int64(4)*datagen.EntityBase
	if got := one(vanBase+42, "van/plate"); got != "VAN-00042" {
		t.Errorf("van 42 plate %q, want VAN-00042", got)
	}
	// Dependent entities: each parent's children are consecutive, numbered
	// 1..n by ordinal, with n in the per-parent range.
	perVan := map[int64][]int64{}
	for id := int64(0); id < ds.Count("route"); id++ {
		e := routeBase + id
		perVan[num(e, "route/van")] = append(perVan[num(e, "route/van")], num(e, "route/day"))
		if end, start := num(e, "route/planned_end"), num(e, "route/starts"); end-start < 2*datagentest.Hour || end-start > 9*datagentest.Hour {
			t.Fatalf("route %d: planned end %d h after its start", id, (end-start)/datagentest.Hour)
		}
	}
	for v, days := range perVan {
		if len(days) > 4 || v < vanBase || v >= vanBase+400 {
			t.Fatalf("van %d: %d routes", v, len(days))
		}
		for i, d := range days {
			if d != int64(i+1) {
				t.Fatalf("van %d: days %v, want 1..n", v, days)
			}
		}
	}
	for id := int64(0); id < ds.Count("stop"); id++ {
		if n := num(stopBase+id, "stop/seq"); n < 1 || n > 5 {
			t.Fatalf("stop %d: seq %d", id, n)
		}
	}
	// The process moves forward one state per step, never from cancelled,
	// and each move advances route/updated within the delay.
	next := map[string]string{"planned": "dispatched", "dispatched": "completed"}
	statusA, updA := r.byIdent["route/status"].id, r.byIdent["route/updated"].id
	type move struct {
		from, to string
		dt       int64
	}
	moves := map[[2]int64]*move{}    // (e, tx)
	loaded := ds.MarkTxs()["loaded"] // the initial load's last tx
	for _, d := range r.log {
		if d.tx <= loaded || (d.a != statusA && d.a != updA) {
			continue
		}
		k := [2]int64{d.e, d.tx}
		if moves[k] == nil {
			moves[k] = &move{}
		}
		m := moves[k]
		v, _ := strconv.ParseInt(d.v, 10, 64)
		switch {
		case d.a == statusA && !d.added:
			m.from = d.v
		case d.a == statusA:
			m.to = d.v
		case !d.added:
			m.dt -= v
		default:
			m.dt += v
		}
	}
	if len(moves) == 0 {
		t.Fatal("the process moved no route")
	}
	for k, m := range moves {
		if next[m.from] != m.to || m.dt < datagentest.Hour/2 || m.dt > 10*datagentest.Hour {
			t.Fatalf("route e %d tx %d: %q -> %q, updated +%d ms", k[0], k[1], m.from, m.to, m.dt)
		}
	}
	// Truths from the files alone.
	var changed, busy, stopsIn []int64
	late := ds.MarkTxs()["late"]
	seen := map[int64]bool{}
	for _, d := range r.log {
		if d.a == statusA && d.added && d.tx > late && !seen[d.e] {
			seen[d.e] = true
			changed = append(changed, d.e)
		}
	}
	from, to := datagentest.Ms("2025-02-01T00:00:00Z"), datagentest.Ms("2025-04-01T00:00:00Z")
	for id := int64(0); id < ds.Count("route"); id++ {
		e := routeBase + id
		s := num(e, "route/starts")
		if s >= from && s <= to && (one(e, "route/status") == "completed" || num(num(e, "route/van"), "van/capacity") >= 150) {
			busy = append(busy, e)
		}
	}
	sums := map[string]int64{}
	for id := int64(0); id < ds.Count("stop"); id++ {
		e := stopBase + id
		if n := num(e, "stop/seq"); n == 1 || n == 5 {
			stopsIn = append(stopsIn, e)
		}
		city := one(num(num(num(e, "stop/route"), "route/van"), "van/depot"), "depot/city")
		sums[city] += num(e, "stop/parcels")
	}
	raw, err := json.Marshal(tr.Values)
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&values); err != nil {
		t.Fatal(err)
	}
	checkIDs(t, values, "changed", changed)
	checkIDs(t, values, "busy", busy)
	checkIDs(t, values, "stops_in", stopsIn)
	if len(busy) == 0 || len(changed) == 0 {
		t.Errorf("degenerate truths: %d busy, %d changed", len(busy), len(changed))
	}
	got := tr.Values["parcels_by_city"].(map[string]any)
	if len(got) != len(sums) {
		t.Errorf("parcels_by_city %v, files %v", got, sums)
	}
	for city, n := range sums {
		if got[city] != n {
			t.Errorf("parcels_by_city[%s] = %v, files %d", city, got[city], n)
		}
	}
	var capSum int64
	var lastEnd int64
	for id := int64(0); id < 400; id++ {
		capSum += num(vanBase+id, "van/capacity")
	}
	for id := int64(0); id < ds.Count("route"); id++ {
		lastEnd = max(lastEnd, num(routeBase+id, "route/planned_end"))
	}
	if avg := tr.Values["avg_capacity"].(float64); avg != float64(capSum)/400 {
		t.Errorf("avg_capacity %v, files %v", avg, float64(capSum)/400)
	}
	if tr.Values["last_end"] != lastEnd {
		t.Errorf("last_end %v, files %d", tr.Values["last_end"], lastEnd)
	}
	for _, s := range tr.Values["routes"].([]truth.Entry) {
		plate := one(num(s.E, "route/van"), "van/plate")
		if s.Key != plate || s.Fields["route/van.van/plate"] != plate || s.Fields["route/day"] != num(s.E, "route/day") {
			t.Errorf("sample %+v: want key and plate %q", s, plate)
		}
	}
}

// TestTruthWorkerIndependent: every truth, doubles sums included, is the
// same whatever the number of workers.
func TestTruthWorkerIndependent(t *testing.T) {
	ds := datagentest.FinishedFleet(t, 3000)
	var ref []byte
	for _, w := range []int{1, 2, 5} {
		tr, err := truth.Compute(context.Background(), ds, w)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tr)
		if ref == nil {
			ref = b
		} else if !bytes.Equal(ref, b) {
			t.Errorf("%d workers: truth differs from 1 worker", w)
		}
	}
}

func writeTo(t *testing.T, ds *datagen.Dataset, shards int, edn bool) string {
	t.Helper()
	dir := t.TempDir()
	if err := export.Write(context.Background(), ds, dir, export.Options{Shards: shards, EDN: edn, Workers: 3}); err != nil {
		t.Fatalf("Write(%d shards): %v", shards, err)
	}
	return dir
}
