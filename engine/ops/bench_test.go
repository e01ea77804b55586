package ops_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/ops"
	"github.com/mentat-spec/mentat-spec/engine/params"
)

// records is YCSB's usertable at n records: a unique key per record.
func records(b *testing.B, n int64) *datagen.Dataset {
	ds := &datagen.Dataset{
		Name: "ycsb", Seed: 7, TxSize: 1000,
		Entities: []datagen.Entity{{Name: "user", Count: n, Attrs: []datagen.Attr{
			{Ident: "ycsb/key", Type: datagen.TypeString, Unique: true, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "user%010d"}},
		}}},
	}
	if err := ds.Finish(); err != nil {
		b.Fatal(err)
	}
	return ds
}

// BenchmarkDrawOperation is what the engine spends on a call before the
// database sees it, in YCSB's workload A at n records: the operation
// drawn by weight (read or update, 50/50), then the read's key (the
// scrambled zipfian record's key) or the update's record (the same
// chooser, counter-based from k). It should stay far below the
// microseconds a database call takes, and flat in n.
func BenchmarkDrawOperation(b *testing.B) {
	keys := datagen.Generator{Kind: datagen.GenScrambledZipf, Target: "user", S: 0.99}
	list := []kind.Operation{{Name: "read", Weight: 50}, {Name: "update", Weight: 50, Write: "update"}}
	for _, n := range []int64{1e4, 1e5, 1e6, 1e7} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			ds := records(b, n)
			bd, err := params.New(ds, []string{"key"}, map[string]params.Spec{"key": {Kind: params.Pick, Chooser: &keys, Attr: "ycsb/key"}})
			if err != nil {
				b.Fatal(err)
			}
			args := bd.Client(7, 0)
			kc, err := ds.KeyChooser(keys)
			if err != nil {
				b.Fatal(err)
			}
			var k int64
			var sink any
			runs := []ops.Run{
				func(context.Context) error { sink = args.Next()[0]; return nil },
				func(context.Context) error { k++; sink = kc.NextAt(7, k, n); return nil },
			}
			c := ops.New(kind.Weights(list), runs, 7, 0)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Call(ctx); err != nil {
					b.Fatal(err)
				}
			}
			_ = sink
		})
	}
}
