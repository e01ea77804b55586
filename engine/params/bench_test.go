package params

import (
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
