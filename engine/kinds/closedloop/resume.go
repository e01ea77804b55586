package closedloop

import (
	"encoding/json"
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// A rep's contribution to its point's summary, saved so that a run
// interrupted between two reps of a point (the interleaved order runs
// other points in between) resumes with the reps after it: the timing
// row is the median over every rep and the HDR log has one interval per
// rep, the ones measured before the interrupt included.

// repStream is what one rep added for one stream.
type repStream struct {
	Stream int
	Row    results.Row
	Hist   *results.Interval
}

// savedRep is a rep's repStreams as Saved encodes them.
type savedRep struct {
	Rep     int           `json:"rep"`
	Streams []savedStream `json:"streams"`
}

type savedStream struct {
	Stream int         `json:"stream"`
	Row    results.Row `json:"row"`
	// The rep's histogram (HdrHistogram's compressed V2 encoding) and
	// its span, when it has one.
	Hist  []byte    `json:"hist,omitempty"`
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
}

// Saved implements kind.RepRun.
func (r *repRun) Saved(n int) ([]byte, error) {
	a := &r.acc
	if a.lastRep != n {
		return nil, fmt.Errorf("at %d clients: rep %d is not the last measured (%d)", r.p.clients, n, a.lastRep)
	}
	sr := savedRep{Rep: n}
	for _, st := range a.last {
		ss := savedStream{Stream: st.Stream, Row: st.Row}
		if st.Hist != nil {
			b, err := st.Hist.Hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
			if err != nil {
				return nil, fmt.Errorf("at %d clients: encoding rep %d's histogram: %w", r.p.clients, n, err)
			}
			ss.Hist, ss.Start, ss.End = b, st.Hist.Start, st.Hist.End
		}
		sr.Streams = append(sr.Streams, ss)
	}
	return json.Marshal(sr)
}

// Restore implements kind.RepRun.
func (r *repRun) Restore(saved [][]byte) error {
	a := &r.acc
	if len(a.rows) > 0 {
		return fmt.Errorf("at %d clients: restoring reps into a point that measured some", r.p.clients)
	}
	for i, b := range saved {
		var sr savedRep
		if err := json.Unmarshal(b, &sr); err != nil {
			return fmt.Errorf("at %d clients: saved rep %d: %w", r.p.clients, i+1, err)
		}
		if sr.Rep != i+1 {
			return fmt.Errorf("at %d clients: saved rep %d says it is rep %d", r.p.clients, i+1, sr.Rep)
		}
		for _, ss := range sr.Streams {
			if ss.Stream < 0 || ss.Stream > 1<<16 {
				return fmt.Errorf("at %d clients: saved rep %d: stream %d", r.p.clients, i+1, ss.Stream)
			}
			for len(a.rows) <= ss.Stream {
				a.rows = append(a.rows, nil)
				a.hists = append(a.hists, nil)
			}
			a.rows[ss.Stream] = append(a.rows[ss.Stream], ss.Row)
			if ss.Hist != nil {
				h, err := hdrhistogram.Decode(ss.Hist)
				if err != nil {
					return fmt.Errorf("at %d clients: saved rep %d's histogram: %w", r.p.clients, i+1, err)
				}
				a.hists[ss.Stream] = append(a.hists[ss.Stream], results.Interval{Start: ss.Start, End: ss.End, Hist: h})
			}
		}
		a.lastRep = sr.Rep
	}
	return nil
}
