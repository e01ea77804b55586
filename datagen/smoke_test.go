package datagen

import (
	"context"
	"testing"
)

func TestSmoke(t *testing.T) {
	for _, extra := range []bool{false, true} {
		ds := finished(t, scaleXS, extra)
		var n int64
		err := ds.Stream(context.Background(), 0, ds.TxCount(), func(tx *Tx) error {
			n += int64(len(tx.Datoms))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		st, err := ds.Stats(context.Background(), 2)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("extra=%v datoms=%d stats=%+v marks=%v", extra, n, st, ds.MarkTxs())
		if n != st.Datoms {
			t.Errorf("stream %d datoms, stats %d", n, st.Datoms)
		}
	}
}
