package datagen_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
)

// txKey renders a transaction completely, for comparing streams.
func txKey(tx *datagen.Tx) string {
	b := fmt.Appendf(nil, "%d %d %s %d:", tx.Index, tx.ID, tx.Phase, tx.File)
	for _, d := range tx.Datoms {
		b = strconv.AppendInt(append(b, ' '), d.E, 10)
		b = strconv.AppendInt(append(b, '/'), int64(d.A), 10)
		b = append(append(b, '/'), d.V.Type...)
		b = strconv.AppendInt(append(b, '/'), d.V.Int, 10)
		b = strconv.AppendFloat(append(b, '/'), d.V.Float, 'g', -1, 64)
		b = strconv.AppendQuote(append(b, '/'), d.V.Str)
		b = strconv.AppendInt(append(b, '/'), d.Tx, 10)
		b = strconv.AppendBool(append(b, '/'), d.Added)
	}
	return string(b)
}

func TestStreamSubRanges(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, true)
	var full []string
	if err := ds.Stream(context.Background(), 0, ds.TxCount(), func(tx *datagen.Tx) error {
		full = append(full, txKey(tx))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	n := ds.TxCount()
	ranges := [][2]int64{{0, 0}, {0, 1}, {n - 1, n}, {5, 17}, {27, 29}, {40, n}, {n, n}}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		a, b := r.Int64N(n+1), r.Int64N(n+1)
		ranges = append(ranges, [2]int64{min(a, b), max(a, b)})
	}
	for _, rg := range ranges {
		var got []string
		if err := ds.Stream(context.Background(), rg[0], rg[1], func(tx *datagen.Tx) error {
			got = append(got, txKey(tx))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		want := full[rg[0]:rg[1]]
		if len(got) != len(want) {
			t.Fatalf("range %v: %d txs, want %d", rg, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("range %v: tx %d differs:\n got %.200s\nwant %.200s", rg, rg[0]+int64(i), got[i], want[i])
			}
		}
	}
}

func TestStreamErrors(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, false)
	boom := errors.New("boom")
	err := ds.Stream(context.Background(), 0, ds.TxCount(), func(tx *datagen.Tx) error {
		if tx.Index == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "tx 3") {
		t.Errorf("callback error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ds.Stream(ctx, 0, ds.TxCount(), func(*datagen.Tx) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled stream: %v", err)
	}
}
