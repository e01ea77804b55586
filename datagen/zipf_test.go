package datagen

import (
	"math"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
)

func TestZipfFrequencies(t *testing.T) {
	const n, draws = 1000, 400_000
	for _, s := range []float64{0.5, 1, 1.1, 2, 3} {
		z := newZipfSampler(n, s)
		st := draw.NewStream(7, "zipf", "test")
		counts := make([]int, n)
		for id := int64(0); id < draws; id++ {
			k := z.sample(st.IDState(id), 0)
			if k < 0 || k >= n {
				t.Fatalf("s=%g: rank %d out of range", s, k)
			}
			counts[k]++
		}
		ratio := float64(counts[0]) / float64(counts[1])
		if want := math.Pow(2, s); math.Abs(ratio/want-1) > 0.1 {
			t.Errorf("s=%g: rank0/rank1 = %.3f, want about %.3f", s, ratio, want)
		}
		var norm float64
		for k := 1; k <= n; k++ {
			norm += math.Pow(float64(k), -s)
		}
		for k := 0; k < 5; k++ {
			want := draws * math.Pow(float64(k+1), -s) / norm
			if math.Abs(float64(counts[k])/want-1) > 0.1 {
				t.Errorf("s=%g: rank %d drawn %d times, want about %.0f", s, k, counts[k], want)
			}
		}
	}
	// One element: always rank 0.
	z := newZipfSampler(1, 1.1)
	st := draw.NewStream(7, "zipf", "one")
	for id := int64(0); id < 1000; id++ {
		if k := z.sample(st.IDState(id), 0); k != 0 {
			t.Fatalf("n=1: rank %d", k)
		}
	}
}

func TestGeneratorRanges(t *testing.T) {
	ds := finished(t, scaleXS, true)
	c := ds.c
	for i := range c.attrs {
		a := &c.attrs[i]
		g := &a.gen
		var vals []Value
		var scratch []int64
		seen := map[Value]int{}
		for id := int64(0); id < c.kinds[a.kind].count; id++ {
			vals, scratch = g.values(id, 0, vals[:0], scratch)
			for _, v := range vals {
				seen[v]++
				switch g.kind {
				case GenUniformInt, GenInstant:
					if v.Int < a.info.Gen.Min || v.Int > a.info.Gen.Max {
						t.Fatalf("%s: %d outside [%d, %d]", a.info.Ident, v.Int, a.info.Gen.Min, a.info.Gen.Max)
					}
				case GenUniformFloat:
					if v.Float < a.info.Gen.FMin || v.Float >= a.info.Gen.FMax {
						t.Fatalf("%s: %g outside [%g, %g)", a.info.Ident, v.Float, a.info.Gen.FMin, a.info.Gen.FMax)
					}
				case GenRef, GenZipf, GenSample:
					if v.Int < g.tbase || v.Int >= g.tbase+g.tcount {
						t.Fatalf("%s: ref %d outside the target", a.info.Ident, v.Int)
					}
				}
			}
			if g.kind == GenSample && (len(vals) < a.info.Gen.MinN || len(vals) > a.info.Gen.MaxN) {
				t.Fatalf("%s: %d values", a.info.Ident, len(vals))
			}
		}
		if a.info.Ident == "issue/priority" && len(seen) != 5 {
			t.Errorf("issue/priority takes %d values, want 5", len(seen))
		}
		if a.info.Ident == "issue/state" {
			total := float64(c.kinds[a.kind].count)
			for _, w := range []struct {
				v string
				p float64
			}{{"open", 0.5}, {"closed", 0.3}, {"in_progress", 0.2}} {
				got := float64(seen[Value{Type: TypeKeyword, Str: w.v}]) / total
				if math.Abs(got-w.p) > 0.03 {
					t.Errorf("issue/state %s: frequency %.3f, want %.2f", w.v, got, w.p)
				}
			}
		}
	}
}
