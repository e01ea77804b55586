package gather

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
	"github.com/mentat-spec/mentat-spec/drivers/sqlite"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The tap keeps the raw rows of the point it taps, only while it taps.
func TestTap(t *testing.T) {
	var tp Tap
	raw := func(sc string) results.Raw { return results.Raw{Scenario: sc, Backend: "b", Scale: "xs", Rep: 1} }
	tp.Observe(raw("p")) // not tapping yet
	tp.start(results.Row{Scenario: "p", Backend: "b", Scale: "xs"})
	tp.Observe(raw("p"))
	tp.Observe(raw("other"))
	tp.Observe(results.Timing{Scenario: "p", Backend: "b", Scale: "xs"})
	tp.Observe(raw("p"))
	if rows := tp.stop(); len(rows) != 2 {
		t.Errorf("tapped %d rows, want the point's 2 raw rows", len(rows))
	}
	tp.Observe(raw("p"))
	if rows := tp.stop(); len(rows) != 0 {
		t.Errorf("kept %d rows after the tap stopped", len(rows))
	}
}

// Around a point on a real SQLite store: the raw rows the point emits
// make its latency split, keyed by the point and rep, with SQLite's
// evidence beside it; without evidence, nothing is gathered. SQLite keeps
// no statement statistics: Facts says nothing of them.
func TestAroundEvidence(t *testing.T) {
	ctx := context.Background()
	be := drivertest.Open(t, sqlite.New(), drivers.Config{Backend: "b"})
	dir, err := results.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	var got []results.Record
	c := &Cell{Name: "xs/b", Scale: "xs", Backend: "b", Store: func() drivers.Backend { return be }, Dir: dir, Tap: &Tap{},
		Emit: func(r results.Record) { got = append(got, r) }, Logf: t.Logf, Fail: t.Errorf}
	point := func() error {
		s, err := be.Session(ctx)
		if err != nil {
			return err
		}
		defer s.Close()
		if err := s.Exec(ctx, "SELECT 1"); err != nil {
			return err
		}
		c.Tap.Observe(results.Raw{Scenario: "lookup", Backend: "b", Scale: "xs", Rep: 2, Count: 1, P50Ms: 1})
		return nil
	}
	if err := c.Around(ctx, Point{Scenario: "lookup", Index: 0, Rep: 2, Describe: "1 client"}, point); err != nil || len(got) != 0 {
		t.Fatalf("without evidence: %v, %d records", err, len(got))
	}
	if err := c.Around(ctx, Point{Scenario: "lookup", Index: 0, Rep: 2, Describe: "1 client", Evidence: true}, point); err != nil {
		t.Fatal(err)
	}
	var splits, evidence int
	for _, r := range got {
		switch x := r.(type) {
		case results.SplitRow:
			splits++
			if x.Scenario != "lookup" || x.Point != 1 || x.Rep != 2 {
				t.Errorf("split keyed %+v", x)
			}
		case results.EvidenceRow:
			evidence++
		}
	}
	if splits != 1 || evidence == 0 {
		t.Errorf("%d split rows, %d evidence rows; want 1 and some", splits, evidence)
	}
	for _, kv := range c.Facts(ctx, "backend.b.xs.") {
		if strings.Contains(kv.Key, "statement_stats") {
			t.Errorf("SQLite keeps no statement statistics, yet %s = %s", kv.Key, kv.Value)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir.Path(), results.LogsDir)); len(entries) != 0 {
		t.Errorf("logs/ holds %d files: no statement statistics to write", len(entries))
	}
}

// A stretch of a point (a capacity probe) on a real SQLite store, inside
// the point's own gathering: its facts and split are handed back, keyed
// by the scenario and point 0, and nothing of it is emitted; the point's
// own evidence is still written. Without evidence the stretch only runs,
// and fn's error comes back either way.
func TestStretch(t *testing.T) {
	ctx := context.Background()
	be := drivertest.Open(t, sqlite.New(), drivers.Config{Backend: "b"})
	dir, err := results.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	var got []results.Record
	c := &Cell{Name: "xs/b", Scale: "xs", Backend: "b", Store: func() drivers.Backend { return be }, Dir: dir, Tap: &Tap{},
		Emit: func(r results.Record) { got = append(got, r) }, Logf: t.Logf, Fail: t.Errorf}
	calls := func() ([]results.Row, error) {
		s, err := be.Session(ctx)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		if err := s.Exec(ctx, "SELECT 1"); err != nil {
			return nil, err
		}
		return []results.Row{{Scenario: "cap", Backend: "b", Scale: "xs", Op: "read", Clients: 1, Count: 1, Throughput: 100}}, nil
	}
	var facts []results.EvidenceRow
	var split *results.SplitRow
	point := func() error {
		var err error
		if facts, split, err = c.Stretch(ctx, "cap", true, calls); err != nil {
			return err
		}
		if len(got) != 0 {
			t.Errorf("the stretch emitted %d records", len(got))
		}
		c.Tap.Observe(results.Raw{Scenario: "cap", Backend: "b", Scale: "xs", Op: "read@capacity", Clients: 1, Count: 1})
		return nil
	}
	if err := c.Around(ctx, Point{Scenario: "cap", Index: 2, Evidence: true}, point); err != nil {
		t.Fatal(err)
	}
	if len(facts) == 0 || facts[0].Scenario != "cap" || facts[0].Point != 0 || facts[0].Source == "engine" {
		t.Errorf("the stretch's facts: %+v", facts)
	}
	if split == nil || split.Scenario != "cap" || split.Point != 0 || split.Calls != 1 || split.ObservedMs != 10 {
		t.Errorf("the stretch's split: %+v", split)
	}
	var pointSplit bool
	for _, r := range got {
		if s, ok := r.(results.SplitRow); ok && s.Point == 3 {
			pointSplit = true
		}
	}
	if !pointSplit {
		t.Errorf("the point's own split was not written around the stretch: %+v", got)
	}
	want := errors.New("probe failed")
	facts, split, err = c.Stretch(ctx, "cap", false, func() ([]results.Row, error) { return nil, want })
	if !errors.Is(err, want) || facts != nil || split != nil {
		t.Errorf("without evidence: %v %v %v", facts, split, err)
	}
}
