package export

import (
	"context"
	"io"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
)

// BenchmarkCSVDiscard is generation plus CSV encoding, no I/O, one
// goroutine.
func BenchmarkCSVDiscard(b *testing.B) {
	ds := datagentest.Finished(b, datagentest.ScaleS, false)
	outs := [len(datagen.ClassNames)]io.Writer{io.Discard, io.Discard, io.Discard}
	var datoms int64
	cpu0 := datagentest.CPUTime()
	for b.Loop() {
		enc := newEncoder(ds.Attrs())
		if err := ds.Stream(context.Background(), 0, ds.TxCount(), func(tx *datagen.Tx) error {
			datoms += int64(len(tx.Datoms))
			return enc.csv(tx, &outs)
		}); err != nil {
			b.Fatal(err)
		}
	}
	datagentest.ReportRate(b, datoms, cpu0)
}

// BenchmarkEDNDiscard is generation plus EDN encoding, one goroutine.
func BenchmarkEDNDiscard(b *testing.B) {
	ds := datagentest.Finished(b, datagentest.ScaleS, false)
	var datoms int64
	cpu0 := datagentest.CPUTime()
	for b.Loop() {
		enc := newEncoder(ds.Attrs())
		if err := ds.Stream(context.Background(), 0, ds.TxCount(), func(tx *datagen.Tx) error {
			datoms += int64(len(tx.Datoms))
			return enc.edn(tx, io.Discard)
		}); err != nil {
			b.Fatal(err)
		}
	}
	datagentest.ReportRate(b, datoms, cpu0)
}

// BenchmarkExport writes CSV (2 shards) to a temp dir, truth included.
func BenchmarkExport(b *testing.B) {
	for _, edn := range []bool{false, true} {
		name := "csv"
		if edn {
			name = "csv+edn"
		}
		b.Run(name, func(b *testing.B) {
			ds := datagentest.Finished(b, datagentest.ScaleS, false)
			st, err := ds.Stats(context.Background(), 0)
			if err != nil {
				b.Fatal(err)
			}
			dir := b.TempDir()
			var datoms int64
			cpu0 := datagentest.CPUTime()
			for b.Loop() {
				if err := Write(context.Background(), ds, dir, Options{Shards: 2, EDN: edn}); err != nil {
					b.Fatal(err)
				}
				datoms += st.Datoms
			}
			datagentest.ReportRate(b, datoms, cpu0)
		})
	}
}

// BenchmarkTxData is generation plus rendering 5,000-datom batches of
// tx-data (a statement load's engine side), one goroutine.
func BenchmarkTxData(b *testing.B) {
	ds := datagentest.Finished(b, datagentest.ScaleS, false)
	for _, format := range []string{"edn", "json"} {
		b.Run(format, func(b *testing.B) {
			var datoms int64
			cpu0 := datagentest.CPUTime()
			for b.Loop() {
				td, err := NewTxData(ds.Attrs(), format, false)
				if err != nil {
					b.Fatal(err)
				}
				if err := ds.Stream(context.Background(), 0, ds.TxCount(), func(tx *datagen.Tx) error {
					for i := range tx.Datoms {
						td.Add(&tx.Datoms[i])
						if td.Len() >= 5000 {
							_ = td.Bytes()
							td.Reset()
						}
					}
					datoms += int64(len(tx.Datoms))
					return nil
				}); err != nil {
					b.Fatal(err)
				}
			}
			datagentest.ReportRate(b, datoms, cpu0)
		})
	}
}
