package params

import (
	"fmt"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
)

// BenchmarkNextPick is what a q1 call spends on its parameter: a random
// user's email, computed from the generator the first time an id is drawn
// and kept after (pickCache).
func BenchmarkNextPick(b *testing.B) {
	ds := &datagen.Dataset{
		Name: "d", Seed: 3, TxSize: 10,
		Entities: []datagen.Entity{{Name: "user", Count: 100_000, Attrs: []datagen.Attr{
			{Ident: "user/email", Type: datagen.TypeString, Unique: true, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "user%d@example.com"}},
		}}},
	}
	if err := ds.Finish(); err != nil {
		b.Fatal(err)
	}
	bd, err := New(ds, []string{"email"}, map[string]Spec{"email": {Kind: Pick, Entity: "user", Attr: "user/email"}})
	if err != nil {
		b.Fatal(err)
	}
	c := bd.Client(1, 0)
	b.ReportAllocs()
	for b.Loop() {
		if c.Next()[0] == nil {
			b.Fatal("no email")
		}
	}
}

// BenchmarkNextChooser is one call's parameter drawn by each key chooser
// (YCSB's constants) over n users: pick(chooser), the entity id, and
// uniform(1, 100), a scan length. The draw should cost the same at every
// n; the id's one allocation, when there is one, is its boxing into the
// argument list, as for pick(kind).
func BenchmarkNextChooser(b *testing.B) {
	gens := []datagen.Generator{
		{Kind: datagen.GenRef},
		{Kind: datagen.GenZipf, S: 0.99},
		{Kind: datagen.GenScrambledZipf, S: 0.99},
		{Kind: datagen.GenLatest, S: 0.99},
		{Kind: datagen.GenHotspot, HotData: 0.2, HotOp: 0.8},
	}
	for _, n := range []int64{1e4, 1e5, 1e6, 1e7} {
		ds := users(b, n)
		for _, g := range gens {
			b.Run(fmt.Sprintf("%s/n=%d", g.Kind, n), func(b *testing.B) {
				bd, err := New(ds, []string{"e"}, map[string]Spec{"e": chooser(g)})
				if err != nil {
					b.Fatal(err)
				}
				c := bd.Client(1, 0)
				b.ReportAllocs()
				for b.Loop() {
					c.Next()
				}
			})
		}
		b.Run(fmt.Sprintf("latest-live/n=%d", n), func(b *testing.B) {
			live := &liveCount{}
			live.n.Store(n)
			bd, err := New(ds, []string{"e"}, map[string]Spec{"e": chooser(datagen.Generator{Kind: datagen.GenLatest, S: 0.99})}, WithLive(live))
			if err != nil {
				b.Fatal(err)
			}
			c := bd.Client(1, 0)
			b.ReportAllocs()
			for b.Loop() {
				live.n.Add(1) // an insert commits between every two calls
				c.Next()
			}
		})
	}
	b.Run("range", func(b *testing.B) {
		bd, err := New(users(b, 10), []string{"n"}, map[string]Spec{"n": {Kind: Range, Min: 1, Max: 100}})
		if err != nil {
			b.Fatal(err)
		}
		c := bd.Client(1, 0)
		b.ReportAllocs()
		for b.Loop() {
			c.Next()
		}
	})
}

// BenchmarkNextChooserValue is pick(chooser, attr) once the pick cache
// holds every user drawn (n up to its 2^18 entities): the YCSB read's key.
func BenchmarkNextChooserValue(b *testing.B) {
	for _, n := range []int64{1e4, 1e5} {
		ds := users(b, n)
		for _, g := range []datagen.Generator{{Kind: datagen.GenZipf, S: 0.99}, {Kind: datagen.GenScrambledZipf, S: 0.99}, {Kind: datagen.GenLatest, S: 0.99}, {Kind: datagen.GenHotspot, HotData: 0.2, HotOp: 0.8}} {
			b.Run(fmt.Sprintf("%s/n=%d", g.Kind, n), func(b *testing.B) {
				spec := chooser(g)
				spec.Attr = "user/email"
				bd, err := New(ds, []string{"k"}, map[string]Spec{"k": spec})
				if err != nil {
					b.Fatal(err)
				}
				c := bd.Client(1, 0)
				for i := int64(0); i < 20*n; i++ { // warm: nearly every user kept
					c.Next()
				}
				b.ReportAllocs()
				for b.Loop() {
					c.Next()
				}
			})
		}
	}
}
