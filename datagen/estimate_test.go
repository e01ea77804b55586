package datagen_test

import (
	"context"
	"math"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"

	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
)

// TestEstimateStatsCloseToExact: the estimate keeps the exact counts exact
// and lands within 2% of the exact datom counts.
func TestEstimateStatsCloseToExact(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleS, true)
	exact, err := ds.Stats(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	old := *datagen.ExactStatsWork
	*datagen.ExactStatsWork = 0
	defer func() { *datagen.ExactStatsWork = old }()
	est, isExact, err := ds.EstimateStats(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if isExact {
		t.Fatal("EstimateStats counted exactly with the limit at 0")
	}
	if est.Txs != exact.Txs {
		t.Errorf("txs %d, want %d", est.Txs, exact.Txs)
	}
	for k, n := range exact.Entities {
		if est.Entities[k] != n {
			t.Errorf("entities %s: %d, want %d", k, est.Entities[k], n)
		}
	}
	near := func(what string, got, want int64) {
		if want == 0 && got == 0 {
			return
		}
		if math.Abs(float64(got-want)) > 0.02*float64(want) {
			t.Errorf("%s: estimate %d, exact %d", what, got, want)
		}
	}
	near("datoms", est.Datoms, exact.Datoms)
	near("initial datoms", est.InitialDatoms, exact.InitialDatoms)
	for k, n := range exact.HistoryDatoms {
		near("history "+k, est.HistoryDatoms[k], n)
	}
	for k, n := range exact.ClassDatoms {
		near("class "+k, est.ClassDatoms[k], n)
	}

	*datagen.ExactStatsWork = old
	if _, isExact, err := ds.EstimateStats(context.Background(), 0); err != nil || !isExact {
		t.Errorf("a small dataset is estimated (exact %v, %v)", isExact, err)
	}
}
