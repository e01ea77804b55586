package datagen

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// chooserGens are the choosers the benchmarks draw with, YCSB's
// constants.
var chooserGens = []Generator{
	{Kind: GenRef},
	{Kind: GenZipf, S: 0.99},
	{Kind: GenScrambledZipf, S: 0.99},
	{Kind: GenLatest, S: 0.99},
	{Kind: GenHotspot, HotData: 0.2, HotOp: 0.8},
}

// BenchmarkKeyChooser is one draw of each chooser from a client's PCG
// source over n entities, and over a count that grows every draw (an
// insert committed between any two reads: the zipfian constant of n is
// recomputed each time). The cost should not depend on n.
func BenchmarkKeyChooser(b *testing.B) {
	for _, g := range chooserGens {
		for _, n := range []int64{1e4, 1e5, 1e6, 1e7} {
			b.Run(fmt.Sprintf("%s/n=%d", g.Kind, n), func(b *testing.B) {
				c := mustChooser(b, g, n)
				r := rand.New(rand.NewPCG(1, 2))
				b.ReportAllocs()
				var sink int64
				for b.Loop() {
					sink += c.Next(r, n)
				}
				_ = sink
			})
		}
		b.Run(fmt.Sprintf("%s/growing", g.Kind), func(b *testing.B) {
			c := mustChooser(b, g, 1e6)
			r := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			n, sink := int64(1e6), int64(0)
			for b.Loop() {
				n++
				sink += c.Next(r, n)
			}
			_ = sink
		})
	}
}

// BenchmarkRandomBytes is one 100-byte random_bytes value (YCSB's field)
// appended to a load buffer, as the initial load builds it.
func BenchmarkRandomBytes(b *testing.B) {
	ds := &Dataset{Name: "y", Seed: 1, TxSize: 10, Entities: []Entity{{Name: "user", Count: 1, Attrs: []Attr{
		{Ident: "user/field0", Type: TypeString, Gen: Generator{Kind: GenRandomBytes, Length: 100}},
	}}}}
	if err := ds.Finish(); err != nil {
		b.Fatal(err)
	}
	g := &ds.c.attrs[0].gen
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	b.SetBytes(100)
	id := int64(0)
	for b.Loop() {
		if len(buf) > 4000 {
			buf = buf[:0]
		}
		buf = g.appendRandom(buf, id, 0)
		id++
	}
}
