package datagen_test

import (
	"math"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
)

func TestGeneratorRanges(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, true)
	// As of the load's last tx every value is its generator's first draw:
	// the histories change them later.
	mid, ok := ds.MarkTx("t_mid")
	if !ok {
		t.Fatal("no mark t_mid")
	}
	for _, a := range ds.Attrs() {
		var tbase, tcount int64
		if a.Gen.Target != "" {
			tbase, _ = ds.EntityID(a.Gen.Target, 0)
			tcount = ds.Count(a.Gen.Target)
		}
		var vals []datagen.Value
		var scratch []int64
		seen := map[datagen.Value]int{}
		for id := int64(0); id < ds.Count(a.Entity); id++ {
			vals, scratch = ds.ValuesAsOf(a.ID, id, mid, vals[:0], scratch)
			for _, v := range vals {
				seen[v]++
				switch a.Gen.Kind {
				case datagen.GenUniformInt, datagen.GenInstant:
					if v.Int < a.Gen.Min || v.Int > a.Gen.Max {
						t.Fatalf("%s: %d outside [%d, %d]", a.Ident, v.Int, a.Gen.Min, a.Gen.Max)
					}
				case datagen.GenUniformFloat:
					if v.Float < a.Gen.FMin || v.Float >= a.Gen.FMax {
						t.Fatalf("%s: %g outside [%g, %g)", a.Ident, v.Float, a.Gen.FMin, a.Gen.FMax)
					}
				case datagen.GenRef, datagen.GenZipf, datagen.GenSample:
					if v.Int < tbase || v.Int >= tbase+tcount {
						t.Fatalf("%s: ref %d outside the target", a.Ident, v.Int)
					}
				}
			}
			if a.Gen.Kind == datagen.GenSample && (len(vals) < a.Gen.MinN || len(vals) > a.Gen.MaxN) {
				t.Fatalf("%s: %d values", a.Ident, len(vals))
			}
		}
		if a.Ident == "issue/priority" && len(seen) != 5 {
			t.Errorf("issue/priority takes %d values, want 5", len(seen))
		}
		if a.Ident == "issue/state" {
			total := float64(ds.Count(a.Entity))
			for _, w := range []struct {
				v string
				p float64
			}{{"open", 0.5}, {"closed", 0.3}, {"in_progress", 0.2}} {
				got := float64(seen[datagen.Value{Type: datagen.TypeKeyword, Str: w.v}]) / total
				if math.Abs(got-w.p) > 0.03 {
					t.Errorf("issue/state %s: frequency %.3f, want %.2f", w.v, got, w.p)
				}
			}
		}
	}
}
