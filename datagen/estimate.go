package datagen

import "context"

// Above exactStatsWork id evaluations Stats would take seconds to minutes
// (a scale of 10^12 datoms: hours); EstimateStats then draws estimateIDs
// evenly spaced ids per kind instead, so a plan answers in constant time.
// Variables so a test can force the estimate on a small dataset.
var (
	exactStatsWork int64 = 20_000_000
	estimateIDs    int64 = 1 << 16
)

// EstimateStats returns Stats exactly (exact = true) when counting is
// cheap, else an estimate: entities, initial single-valued datoms and
// transactions are exact; the sizes of multi-valued attributes and the
// histories are scaled up from evenly spaced ids. Its cost is bounded
// whatever the counts.
func (ds *Dataset) EstimateStats(ctx context.Context, workers int) (st Stats, exact bool, err error) {
	c, err := ds.compiled()
	if err != nil {
		return Stats{}, false, err
	}
	var work int64
	for k := range c.kinds {
		kc := &c.kinds[k]
		per := int64(0)
		for _, ai := range kc.attrs {
			if c.attrs[ai].info.Many {
				per++
			}
		}
		for hi := range c.hists {
			if c.hists[hi].kind == k {
				per++
			}
		}
		work += per * kc.count
	}
	if work <= exactStatsWork {
		st, err := ds.Stats(ctx, workers)
		return st, true, err
	}
	st = Stats{Entities: map[string]int64{}, HistoryDatoms: map[string]int64{}, ClassDatoms: map[string]int64{}}
	var classes [len(ClassNames)]int64
	for _, h := range c.hists {
		st.HistoryDatoms[h.name] = 0
	}
	for k := range c.kinds {
		kc := &c.kinds[k]
		st.Entities[kc.name] = kc.count
		n := min(kc.count, estimateIDs)
		// scaleUp turns a sum over the n drawn ids into one over all ids.
		scaleUp := func(sum int64) int64 {
			if n == 0 {
				return 0
			}
			return int64(float64(sum) * float64(kc.count) / float64(n))
		}
		id := func(j int64) int64 { return j * kc.count / n }
		for _, ai := range kc.attrs {
			a := &c.attrs[ai]
			if !a.info.Many {
				classes[a.info.Class] += kc.count
				st.InitialDatoms += kc.count
				continue
			}
			var sum int64
			for j := int64(0); j < n; j++ {
				sum += int64(a.gen.sampleSize(a.gen.s.IDState(id(j))))
			}
			classes[a.info.Class] += scaleUp(sum)
			st.InitialDatoms += scaleUp(sum)
		}
		for hi := range c.hists {
			h := &c.hists[hi]
			if h.kind != k {
				continue
			}
			var sum int64
			for j := int64(0); j < n; j++ {
				if h.selected(id(j)) {
					sum++
				}
			}
			st.HistoryDatoms[h.name] += 2 * scaleUp(sum)
			classes[c.attrs[h.attr].info.Class] += 2 * scaleUp(sum)
		}
		if err := ctx.Err(); err != nil {
			return st, false, err
		}
	}
	st.Datoms = st.InitialDatoms
	for _, v := range st.HistoryDatoms {
		st.Datoms += v
	}
	for i, v := range classes {
		st.ClassDatoms[ClassNames[i]] = v
	}
	st.Txs = c.txCount
	return st, false, nil
}
