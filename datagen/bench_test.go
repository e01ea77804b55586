package datagen_test

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
)

func streamAll(b *testing.B, ds *datagen.Dataset, from, to int64) int64 {
	var n int64
	if err := ds.Stream(context.Background(), from, to, func(tx *datagen.Tx) error {
		n += int64(len(tx.Datoms))
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkStream is generation alone, one goroutine: datoms/s per core.
func BenchmarkStream(b *testing.B) {
	ds := datagentest.Finished(b, datagentest.ScaleS, false)
	var datoms int64
	cpu0 := datagentest.CPUTime()
	for b.Loop() {
		datoms += streamAll(b, ds, 0, ds.TxCount())
	}
	datagentest.ReportRate(b, datoms, cpu0)
}

// BenchmarkStreamParallel splits the stream over GOMAXPROCS goroutines.
func BenchmarkStreamParallel(b *testing.B) {
	ds := datagentest.Finished(b, datagentest.ScaleS, false)
	workers := int64(runtime.GOMAXPROCS(0))
	var datoms int64
	cpu0 := datagentest.CPUTime()
	for b.Loop() {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := streamAll(b, ds, w*ds.TxCount()/workers, (w+1)*ds.TxCount()/workers)
				mu.Lock()
				datoms += n
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	datagentest.ReportRate(b, datoms, cpu0)
}

// BenchmarkStatsXL counts the xl scale (40M issues) on GOMAXPROCS cores.
func BenchmarkStatsXL(b *testing.B) {
	ds := datagentest.Finished(b, datagentest.Scale{Name: "xl", Users: 500_000, Labels: 2_000, Issues: 40_000_000}, false)
	var st datagen.Stats
	cpu0 := datagentest.CPUTime()
	for b.Loop() {
		var err error
		if st, err = ds.Stats(context.Background(), 0); err != nil {
			b.Fatal(err)
		}
	}
	datagentest.ReportCPU(b, cpu0)
	b.ReportMetric(float64(st.Datoms), "datoms")
}

// BenchmarkMemory streams and computes the truth of xs and m, sampling
// the heap, to show that memory does not grow with scale. peak-heap is
// the largest HeapInuse seen while streaming (garbage included);
// live-heap the largest heap after a forced GC at eight points of the
// stream; truth-heap the heap holding the computed truth, whose size is
// that of its answers (inverse refs grow with the referring kind).
func BenchmarkMemory(b *testing.B) {
	for _, sc := range []datagentest.Scale{datagentest.ScaleXS, datagentest.ScaleM} {
		b.Run(sc.Name, func(b *testing.B) {
			ds := datagentest.Finished(b, sc, false)
			var peak, live, truthHeap uint64
			var ms runtime.MemStats
			sample := func(gc bool) {
				if gc {
					runtime.GC()
				}
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
				if gc {
					live = max(live, ms.HeapAlloc)
				}
			}
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			var datoms int64
			n := ds.TxCount()
			for b.Loop() {
				if err := ds.Stream(context.Background(), 0, n, func(tx *datagen.Tx) error {
					datoms += int64(len(tx.Datoms))
					if tx.Index%64 == 0 {
						sample(false)
					}
					if tx.Index%(n/8+1) == 0 {
						sample(true)
					}
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				tr, err := truth.Compute(context.Background(), ds, 0)
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&ms)
				truthHeap = max(truthHeap, ms.HeapAlloc)
				runtime.KeepAlive(tr)
			}
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(peak), "peak-heap-B")
			b.ReportMetric(float64(live), "live-heap-B")
			b.ReportMetric(float64(truthHeap), "truth-heap-B")
			b.ReportMetric(float64(ms.TotalAlloc-before.TotalAlloc)/float64(datoms), "alloc-B/datom")
		})
	}
}
