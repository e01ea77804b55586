package datagen

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const hour = int64(3600 * 1000)

// fleet is a delivery fleet: vans with a dependent number of routes,
// routes with a dependent number of stops, a process history with a
// time attribute, a generator history and a second one ordered after it,
// derived (offset) instants and zero-padded codes.
func fleet(vans int64) *Dataset {
	return &Dataset{
		Name: "fleet", Seed: 7, TxSize: 100,
		Entities: []Entity{
			{Name: "depot", Count: 5, Attrs: []Attr{
				{Ident: "depot/code", Type: TypeString, Unique: true, Gen: Generator{Kind: GenSeq, Format: "DEP-%03d"}},
				{Ident: "depot/city", Type: TypeKeyword, Gen: Generator{Kind: GenWeighted, Choices: []string{"lille", "lyon"}, Weights: []float64{1, 2}}},
			}},
			{Name: "van", Count: vans, Attrs: []Attr{
				{Ident: "van/plate", Type: TypeString, Unique: true, Gen: Generator{Kind: GenSeq, Format: "VAN-%05d"}},
				{Ident: "van/depot", Type: TypeRef, Gen: Generator{Kind: GenRef, Target: "depot"}},
				{Ident: "van/capacity", Type: TypeLong, Gen: Generator{Kind: GenUniformInt, Min: 50, Max: 200}},
			}},
			{Name: "route", Parent: "van", PerParent: Generator{Kind: GenUniformInt, Min: 0, Max: 4}, Attrs: []Attr{
				{Ident: "route/van", Type: TypeRef, Gen: Generator{Kind: GenParent}},
				{Ident: "route/day", Type: TypeLong, Gen: Generator{Kind: GenOrdinal}},
				{Ident: "route/starts", Type: TypeInstant, Gen: Generator{Kind: GenInstant, Min: ms("2025-01-01T00:00:00Z"), Max: ms("2025-07-01T00:00:00Z")}},
				{Ident: "route/planned_end", Type: TypeInstant, Gen: Generator{Kind: GenOffset, Source: "route/starts", Min: 2 * hour, Max: 9 * hour}},
				{Ident: "route/status", Type: TypeKeyword, Gen: Generator{Kind: GenWeighted, Choices: []string{"cancelled", "planned"}, Weights: []float64{1, 9}}},
				{Ident: "route/updated", Type: TypeInstant, Gen: Generator{Kind: GenOffset, Source: "route/starts", Min: 0, Max: hour}},
			}},
			{Name: "stop", Parent: "route", PerParent: Generator{Kind: GenWeighted, Choices: []string{"2", "5"}, Weights: []float64{1, 1}}, Attrs: []Attr{
				{Ident: "stop/route", Type: TypeRef, Gen: Generator{Kind: GenParent}},
				{Ident: "stop/seq", Type: TypeLong, Gen: Generator{Kind: GenOrdinal}},
				{Ident: "stop/parcels", Type: TypeLong, Gen: Generator{Kind: GenUniformInt, Min: 1, Max: 20}},
			}},
		},
		History: []History{
			{Name: "progress", Entity: "route", Attr: "route/status", States: []string{"planned", "dispatched", "completed"},
				Fractions: []float64{0.8, 0.5}, Files: 3, Time: "route/updated", DelayMin: hour / 2, DelayMax: 10 * hour},
			{Name: "recount", Entity: "stop", Attr: "stop/parcels", Fraction: 0.2, Files: 2, Gen: &Generator{Kind: GenUniformInt, Min: 0, Max: 30}},
			{Name: "recount_again", Entity: "stop", Attr: "stop/parcels", Fraction: 0.1, Files: 1, After: "recount"},
		},
		Marks: []Mark{{Name: "loaded", After: "initial"}, {Name: "late", BeforeLast: "progress"}},
		Truth: []TruthDecl{
			{Name: "changed", Kind: TruthChangedSince, Attr: "route/status", Since: "late"},
			{Name: "busy", Kind: TruthCount, Entity: "route", Where: []Filter{
				{Attr: "route/starts", Op: "between", Values: []string{"2025-02-01T00:00:00Z", "2025-04-01T00:00:00Z"}},
				{Op: "or", Any: []Filter{{Attr: "route/status", Op: "eq", Value: "completed"}, {Attr: "route/van.van/capacity", Op: "ge", Value: "150"}}},
			}},
			{Name: "stops_in", Kind: TruthCount, Entity: "stop", Where: []Filter{{Attr: "stop/seq", Op: "in", Values: []string{"1", "5"}}}},
			{Name: "parcels_by_city", Kind: TruthSum, Attr: "stop/parcels", By: "stop/route.route/van.van/depot.depot/city"},
			{Name: "avg_capacity", Kind: TruthAvg, Attr: "van/capacity"},
			{Name: "last_end", Kind: TruthMax, Attr: "route/planned_end"},
			{Name: "routes", Kind: TruthSample, Entity: "route", N: 5, Attrs: []string{"route/day", "route/van.van/plate"}, Key: "route/van.van/plate"},
		},
	}
}

func finishedFleet(t *testing.T, vans int64) *Dataset {
	t.Helper()
	ds := fleet(vans)
	if err := ds.Finish(); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	return ds
}

// TestFleetFiles writes the fleet at several shard counts (byte-identical),
// then checks the files against the generator: stats, values as of every
// mark, the structure of dependent entities, the process history's
// order and time stamps, and the truths computed from the files alone.
func TestFleetFiles(t *testing.T) {
	ds := finishedFleet(t, 400)
	ref := writeTo(t, ds, 1, true)
	for _, shards := range []int{3, 7} {
		dir := writeTo(t, finishedFleet(t, 400), shards, true)
		for _, p := range []string{"datoms-text-*.csv", "datoms-int-*.csv", "tx-*.edn", "tx.csv", "truth.json"} {
			if !bytes.Equal(concat(t, ref, p), concat(t, dir, p)) {
				t.Errorf("%d shards: %s differs from the 1-shard run", shards, p)
			}
		}
	}
	r := loadReplica(t, ref)
	tr, err := ComputeTruth(context.Background(), ds, 3)
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
	vanBase, routeBase, stopBase := int64(2)*EntityBase, int64(3)*EntityBase, int64(4)*EntityBase
	if got := one(vanBase+42, "van/plate"); got != "VAN-00042" {
		t.Errorf("van 42 plate %q, want VAN-00042", got)
	}
	// Dependent entities: each parent's children are consecutive, numbered
	// 1..n by ordinal, with n in the per-parent range.
	perVan := map[int64][]int64{}
	for id := int64(0); id < ds.Count("route"); id++ {
		e := routeBase + id
		perVan[num(e, "route/van")] = append(perVan[num(e, "route/van")], num(e, "route/day"))
		if end, start := num(e, "route/planned_end"), num(e, "route/starts"); end-start < 2*hour || end-start > 9*hour {
			t.Fatalf("route %d: planned end %d h after its start", id, (end-start)/hour)
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
	moves := map[[2]int64]*move{} // (e, tx)
	for _, d := range r.log {
		if d.tx < TxBase+ds.c.initialEnd || (d.a != statusA && d.a != updA) {
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
		if next[m.from] != m.to || m.dt < hour/2 || m.dt > 10*hour {
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
	from, to := ms("2025-02-01T00:00:00Z"), ms("2025-04-01T00:00:00Z")
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
	for _, s := range tr.Values["routes"].([]Entry) {
		plate := one(num(s.E, "route/van"), "van/plate")
		if s.Key != plate || s.Fields["route/van.van/plate"] != plate || s.Fields["route/day"] != num(s.E, "route/day") {
			t.Errorf("sample %+v: want key and plate %q", s, plate)
		}
	}
}

// TestTruthWorkerIndependent: every truth, doubles sums included, is the
// same whatever the number of workers.
func TestTruthWorkerIndependent(t *testing.T) {
	ds := finishedFleet(t, 3000)
	var ref []byte
	for _, w := range []int{1, 2, 5} {
		tr, err := ComputeTruth(context.Background(), ds, w)
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

// TestHistoryOrderAndProcessErrors: histories sharing an attribute need
// an explicit order, and a process needs consistent states.
func TestHistoryOrderAndProcessErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(ds *Dataset)
		want string
	}{
		{"second history without after", func(ds *Dataset) { ds.History[2].After = "" },
			`history "recount_again": attr "stop/parcels" is also changed by history "recount": set after = "recount"`},
		{"time attribute shared without after", func(ds *Dataset) {
			ds.History = append(ds.History, History{Name: "touch", Entity: "route", Attr: "route/starts", Fraction: 0.1, Files: 1, Time: "route/updated", DelayMin: 1, DelayMax: 2})
		}, `history "touch": attr "route/updated" is also changed by history "progress"`},
		{"after a later history", func(ds *Dataset) { ds.History[1].After = "recount_again" },
			`history "recount": after "recount_again" is not a history declared before it`},
		{"fractions per step", func(ds *Dataset) { ds.History[0].Fractions = []float64{0.5} },
			`history "progress": fractions needs one fraction per step (2), got 1`},
		{"state of the wrong type", func(ds *Dataset) {
			ds.History[2] = History{Name: "x", Entity: "stop", Attr: "stop/parcels", States: []string{"1", "many"}, Fractions: []float64{1}, Files: 1, After: "recount"}
		}, `history "x": states: "many" is not a long`},
		{"time not an instant", func(ds *Dataset) { ds.History[0].Time = "route/day" },
			`history "progress": time "route/day" must be a cardinality-one instant`},
		{"parent declared later", func(ds *Dataset) { ds.Entities[2].Parent = "stop" },
			`entity "route": parent "stop" is not an entity declared before it`},
		{"seq padding without width", func(ds *Dataset) { ds.Entities[1].Attrs[0].Gen.Format = "VAN-%0d" },
			`seq format "VAN-%0d": %0 needs a width`},
		{"path through a non-ref", func(ds *Dataset) { ds.Truth[5].Attr = "van/capacity.depot/city" },
			`path "van/capacity.depot/city": "van/capacity" is not a ref`},
		{"reserved truth name", func(ds *Dataset) { ds.Truth[0].Name = IDsKey },
			`truth "ids": the name "ids" is reserved`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := fleet(50)
			tt.edit(ds)
			err := ds.Finish()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Finish error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestFamilyLocate: locating a child by id agrees with walking every
// parent's children in order.
func TestFamilyLocate(t *testing.T) {
	ds := finishedFleet(t, 1000)
	f := ds.c.kinds[2].fam
	id := int64(0)
	for p := int64(0); p < f.parentCount; p++ {
		for pos := int64(0); pos < f.children(p); pos++ {
			gp, gpos := f.locate(id)
			if gp != p || gpos != pos {
				t.Fatalf("locate(%d) = (%d, %d), want (%d, %d)", id, gp, gpos, p, pos)
			}
			id++
		}
	}
	if id != ds.Count("route") {
		t.Fatalf("%d children walked, count %d", id, ds.Count("route"))
	}
	ids := []int64{id - 1, 0, id / 2, 7}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	cu := famCursor{f: f}
	for _, x := range ids {
		p1, pos1 := f.locate(x)
		p2, pos2 := cu.at(x)
		if p1 != p2 || pos1 != pos2 {
			t.Fatalf("cursor at %d = (%d, %d), locate (%d, %d)", x, p2, pos2, p1, pos1)
		}
	}
}
