package datagen

import (
	"context"

	"github.com/mentat-spec/mentat-spec/datagen/internal/scan"
)

// Stats are exact sizes of a generated dataset.
type Stats struct {
	Entities      map[string]int64 `json:"entities"`       // entities per kind
	InitialDatoms int64            `json:"initial_datoms"` // datoms of the initial phase
	HistoryDatoms map[string]int64 `json:"history_datoms"` // datoms per history (retracts + asserts)
	ClassDatoms   map[string]int64 `json:"class_datoms"`   // datoms per storage class ("text", "int", "real")
	Datoms        int64            `json:"datoms"`         // all datoms
	Txs           int64            `json:"txs"`            // all transactions
}

// Stats counts the dataset exactly. It draws only what counts depend on
// (sample sizes and history selection), in parallel over id ranges, on
// workers goroutines (<= 0: GOMAXPROCS).
func (ds *Dataset) Stats(ctx context.Context, workers int) (Stats, error) {
	st := Stats{Entities: map[string]int64{}, HistoryDatoms: map[string]int64{}, ClassDatoms: map[string]int64{}}
	c, err := ds.compiled()
	if err != nil {
		return st, err
	}
	for _, cl := range ClassNames {
		st.ClassDatoms[cl] = 0
	}
	var classes [len(ClassNames)]int64
	for _, h := range c.hists {
		st.HistoryDatoms[h.name] = 0
	}
	for k := range c.kinds {
		kc := &c.kinds[k]
		st.Entities[kc.name] = kc.count
		var many []int
		for _, ai := range kc.attrs {
			a := &c.attrs[ai]
			if a.info.Many {
				many = append(many, ai)
				continue
			}
			classes[a.info.Class] += kc.count
			st.InitialDatoms += kc.count
		}
		var hists []int
		for hi := range c.hists {
			if c.hists[hi].kind == k {
				hists = append(hists, hi)
			}
		}
		if len(many)+len(hists) == 0 {
			continue
		}
		nw := scan.Workers(workers)
		manySum := make([][]int64, nw) // [worker][many attr]
		histSum := make([][]int64, nw) // [worker][history]
		for w := range nw {
			manySum[w] = make([]int64, len(many))
			histSum[w] = make([]int64, len(hists))
		}
		err := scan.Chunks(ctx, kc.count, nw, func(w int, lo, hi int64) error {
			ms, hs := manySum[w], histSum[w]
			for i, ai := range many {
				g := &c.attrs[ai].gen
				var n int64
				for id := lo; id < hi; id++ {
					n += int64(g.sampleSize(g.s.IDState(id)))
				}
				ms[i] += n
			}
			for i, hi2 := range hists {
				h := &c.hists[hi2]
				var n int64
				for id := lo; id < hi; id++ {
					if h.mode != histStep {
						if h.selected(id) {
							n++
						}
						continue
					}
					if before, _ := c.walk(h.attr, id, hi2, -1); c.applies(h, id, before) {
						n++
					}
				}
				hs[i] += n
			}
			return nil
		})
		if err != nil {
			return st, err
		}
		for w := range nw {
			for i, ai := range many {
				classes[c.attrs[ai].info.Class] += manySum[w][i]
				st.InitialDatoms += manySum[w][i]
			}
			for i, hi := range hists {
				h := &c.hists[hi]
				st.HistoryDatoms[h.name] += 2 * histSum[w][i]
				classes[c.attrs[h.attr].info.Class] += 2 * histSum[w][i]
				if h.time >= 0 {
					st.HistoryDatoms[h.name] += 2 * histSum[w][i]
					classes[ClassInt] += 2 * histSum[w][i]
				}
			}
		}
	}
	st.Datoms = st.InitialDatoms
	for _, n := range st.HistoryDatoms {
		st.Datoms += n
	}
	for i, n := range classes {
		st.ClassDatoms[ClassNames[i]] = n
	}
	st.Txs = c.txCount
	return st, nil
}
