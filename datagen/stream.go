package datagen

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
)

// PhaseInitial is the phase name of the initial load.
const PhaseInitial = "initial"

// Phase is one contiguous run of transactions: the initial load of one
// entity kind, or one file of a history. Phases cover the whole stream in
// order; a phase may hold no transactions (a kind with no entities).
type Phase struct {
	Name    string // PhaseInitial or the history name
	Entity  string // the entity kind the phase writes
	Attr    string // the attribute a history changes ("" for initial)
	File    int    // history file number (0 for initial)
	FirstID int64  // entity ids [FirstID, EndID) covered
	EndID   int64
	Start   int64 // tx indexes [Start, End)
	End     int64
}

// maxRetries bounds the re-draws that make a history value differ from
// the value it replaces.
const maxRetries = 32

// ctxCheckEvery is how many transactions pass between context checks.
const ctxCheckEvery = 4096

// TxCount is the number of transactions in the whole stream (0 before
// Finish).
func (ds *Dataset) TxCount() int64 {
	if ds == nil || ds.c == nil {
		return 0
	}
	return ds.c.txCount
}

// Phases returns the phases in stream order.
func (ds *Dataset) Phases() []Phase {
	if ds == nil || ds.c == nil {
		return nil
	}
	return append([]Phase(nil), ds.c.phases...)
}

// MarkTx returns the tx id of a named mark: the last tx of its phase
// (after), or the last tx before the final file of a history
// (before_last). An empty phase yields the tx id just before it.
func (ds *Dataset) MarkTx(name string) (int64, bool) {
	if ds == nil || ds.c == nil {
		return 0, false
	}
	tx, ok := ds.c.marks[name]
	return tx, ok
}

// MarkTxs returns every mark's tx id by name. (Marks is the field holding
// the declarations.)
func (ds *Dataset) MarkTxs() map[string]int64 {
	m := map[string]int64{}
	if ds == nil || ds.c == nil {
		return m
	}
	for k, v := range ds.c.marks {
		m[k] = v
	}
	return m
}

// Stream calls fn for each transaction index in [from, to), in order.
// The *Tx and its Datoms slice are reused between calls: copy what must
// outlive a call. Strings in datoms are immutable and safe to keep, but a
// kept string pins that transaction's string block. Stream is safe to
// call concurrently on disjoint or overlapping ranges; each call has its
// own state.
func (ds *Dataset) Stream(ctx context.Context, from, to int64, fn func(*Tx) error) error {
	c, err := ds.compiled()
	if err != nil {
		return err
	}
	if from < 0 || to > c.txCount || from > to {
		return fmt.Errorf("datagen: stream range [%d, %d) outside [0, %d)", from, to, c.txCount)
	}
	st := newStreamer(c)
	pi := sort.Search(len(c.phases), func(j int) bool { return c.phases[j].End > from })
	for i := from; i < to; i++ {
		if (i-from)%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("datagen: stream stopped at tx %d: %w", i, err)
			}
		}
		for i >= c.phases[pi].End {
			pi++
		}
		st.fill(pi, i)
		if err := fn(&st.tx); err != nil {
			return fmt.Errorf("datagen: tx %d: %w", i, err)
		}
	}
	return nil
}

type strFix struct {
	datom  int
	lo, hi int
}

// streamer holds the reusable buffers of one Stream call.
type streamer struct {
	c       *compiled
	tx      Tx
	buf     []byte   // seq strings of the current tx
	fixes   []strFix // which datoms take which part of buf
	scratch []int64
	hist    []int // phase index -> history index (-1 for initial)
	kind    []int // phase index -> kind index
	cursor  famCursor
}

func newStreamer(c *compiled) *streamer {
	st := &streamer{c: c, hist: c.phaseHist}
	for _, p := range c.phases {
		st.kind = append(st.kind, c.byKind[p.Entity])
	}
	return st
}

// fill builds transaction i of phase pi into st.tx.
func (st *streamer) fill(pi int, i int64) {
	c := st.c
	p := &c.phases[pi]
	tx := &st.tx
	tx.Index, tx.ID, tx.Phase, tx.File = i, TxBase+i, p.Name, p.File
	lo := p.FirstID + (i-p.Start)*c.txSize
	hi := min(lo+c.txSize, p.EndID)
	if h := st.hist[pi]; h >= 0 {
		tx.Datoms = st.fillHistory(h, tx.Datoms[:0], lo, hi, tx.ID)
		return
	}
	tx.Datoms = st.fillInitial(&c.kinds[st.kind[pi]], tx.Datoms[:0], lo, hi, tx.ID)
}

// family returns the parent and position of id of a dependent kind.
func (st *streamer) family(kc *kindComp, id int64) (p, pos int64) {
	if st.cursor.f != kc.fam {
		st.cursor = famCursor{f: kc.fam}
	}
	return st.cursor.at(id)
}

func (st *streamer) fillInitial(kc *kindComp, d []Datom, lo, hi, txid int64) []Datom {
	c := st.c
	buf, fixes := st.buf[:0], st.fixes[:0]
	for id := lo; id < hi; id++ {
		e := kc.base + id
		for _, ai := range kc.attrs {
			a := &c.attrs[ai]
			g := &a.gen
			switch g.fill {
			case fillSeq:
				// Bytes now, one string per tx later: no allocation per datom.
				start := len(buf)
				if g.pad == 0 {
					buf = append(buf, g.prefix...)
					buf = strconv.AppendInt(buf, id, 10)
					buf = append(buf, g.suffix...)
				} else {
					buf = g.appendSeq(buf, id)
				}
				fixes = append(fixes, strFix{datom: len(d), lo: start, hi: len(buf)})
				d = append(d, Datom{E: e, A: a.info.ID, V: Value{Type: g.typ}, Tx: txid, Added: true})
			case fillBytes:
				start := len(buf)
				buf = g.appendRandom(buf, id, 0)
				fixes = append(fixes, strFix{datom: len(d), lo: start, hi: len(buf)})
				d = append(d, Datom{E: e, A: a.info.ID, V: Value{Type: g.typ}, Tx: txid, Added: true})
			case fillFamily:
				p, pos := st.family(kc, id)
				v := Value{Type: g.typ, Int: pos + 1}
				if g.kind == GenParent {
					v.Int = g.tbase + p
				}
				d = append(d, Datom{E: e, A: a.info.ID, V: v, Tx: txid, Added: true})
			case fillSample:
				st.scratch = g.sampleIDs(id, st.scratch)
				for _, t := range st.scratch {
					d = append(d, Datom{E: e, A: a.info.ID, V: Value{Type: g.typ, Int: g.tbase + t}, Tx: txid, Added: true})
				}
			default:
				d = append(d, Datom{E: e, A: a.info.ID, V: g.one(id, 0), Tx: txid, Added: true})
			}
		}
	}
	if len(fixes) > 0 {
		s := string(buf)
		for _, f := range fixes {
			d[f.datom].V.Str = s[f.lo:f.hi]
		}
	}
	st.buf, st.fixes = buf, fixes
	return d
}

func (st *streamer) fillHistory(hi0 int, d []Datom, lo, hi, txid int64) []Datom {
	c := st.c
	h := &c.hists[hi0]
	a := &c.attrs[h.attr]
	base := c.kinds[h.kind].base
	for id := lo; id < hi; id++ {
		if h.mode != histStep && !h.selected(id) {
			continue // most ids: one draw, no value computed
		}
		before, n := c.walk(h.attr, id, hi0, -1)
		if !c.applies(h, id, before) {
			continue
		}
		cur := c.next(h, h.attr, id, before, n+1)
		d = append(d,
			Datom{E: base + id, A: a.info.ID, V: before, Tx: txid, Added: false},
			Datom{E: base + id, A: a.info.ID, V: cur, Tx: txid, Added: true})
		if h.time >= 0 {
			tb, tn := c.walk(h.time, id, hi0, -1)
			ta := c.next(h, h.time, id, tb, tn+1)
			tid := c.attrs[h.time].info.ID
			d = append(d,
				Datom{E: base + id, A: tid, V: tb, Tx: txid, Added: false},
				Datom{E: base + id, A: tid, V: ta, Tx: txid, Added: true})
		}
	}
	return d
}

// selected reports whether a redraw or gen history h changes id.
func (h *histComp) selected(id int64) bool {
	return draw.Unit(h.sel.Draw(id, 0, 0)) < h.frac
}

// appliesTo reports whether change hi applies to id.
func (c *compiled) appliesTo(hi int, id int64) bool {
	h := &c.hists[hi]
	if h.mode != histStep {
		return h.selected(id)
	}
	before, _ := c.walk(h.attr, id, hi, -1)
	return c.applies(h, id, before)
}

// applies reports whether change h applies to id, given the value of
// h's own attribute just before it.
func (c *compiled) applies(h *histComp, id int64, before Value) bool {
	if h.mode == histStep {
		return before.Equal(h.from) && draw.Unit(h.sel.Draw(id, 0, uint64(h.step))) < h.frac
	}
	return h.selected(id)
}

// walk folds the changes of attribute ai for id, in order, from its
// initial value. It stops before change stop (-1: none) and before the
// first change after tx id asOf (< 0: none), and returns the value then
// with the number of changes applied.
func (c *compiled) walk(ai int, id int64, stop int, asOf int64) (Value, int) {
	a := &c.attrs[ai]
	v := a.gen.one(id, verWord(0, 0))
	n := 0
	for _, hi := range a.hists {
		h := &c.hists[hi]
		if hi == stop || (asOf >= 0 && TxBase+c.histTx(h, id) > asOf) {
			break
		}
		var ok bool
		if h.attr == ai {
			ok = c.applies(h, id, v)
		} else if h.mode == histStep {
			// A time attribute follows its process: did the step apply?
			pv, _ := c.walk(h.attr, id, hi, -1)
			ok = c.applies(h, id, pv)
		} else {
			ok = h.selected(id)
		}
		if ok {
			n++
			v = c.next(h, ai, id, v, n)
		}
	}
	return v, n
}

// next is the value change h gives attribute ai of id (its n-th change)
// after before. Redraws re-draw (up to maxRetries times) until the value
// differs from before, so each change is a real change.
func (c *compiled) next(h *histComp, ai int, id int64, before Value, n int) Value {
	if ai == h.time {
		delay := h.dmin + int64(draw.Below(h.sel.Draw(id, 1, uint64(h.step)), h.dspan))
		return Value{Type: before.Type, Int: before.Int + delay}
	}
	g := &c.attrs[ai].gen
	switch h.mode {
	case histStep:
		return h.to
	case histGen:
		g = &h.gen
	}
	cur := before
	for r := 0; r <= maxRetries; r++ {
		cur = g.one(id, verWord(n, r))
		if !cur.Equal(before) {
			break
		}
	}
	return cur
}

// initialTx is the tx index of id's initial transaction.
func (c *compiled) initialTx(k int, id int64) int64 {
	return c.kinds[k].txStart + id/c.txSize
}

// fileOf returns the history file holding id.
func (h *histComp) fileOf(id int64) int {
	if h.n <= 0 {
		return 0
	}
	f := int(((id+1)*int64(h.files) - 1) / h.n)
	f = max(0, min(f, h.files-1))
	for f > 0 {
		if lo, _ := fileRange(h.n, h.files, f); lo <= id {
			break
		}
		f--
	}
	for f+1 < h.files {
		if lo, _ := fileRange(h.n, h.files, f+1); lo > id {
			break
		}
		f++
	}
	return f
}

// histTx is the tx index at which history h handles id.
func (c *compiled) histTx(h *histComp, id int64) int64 {
	f := h.fileOf(id)
	lo, _ := fileRange(h.n, h.files, f)
	return h.fileTx[f] + (id-lo)/c.txSize
}

// changedAfter reports whether attribute ai of id has a datom in a tx
// after since (its initial assert included), as changedSince counts.
func (c *compiled) changedAfter(ai int, id, since int64) bool {
	a := &c.attrs[ai]
	if TxBase+c.initialTx(a.kind, id) > since {
		return true
	}
	for _, hi := range a.hists {
		h := &c.hists[hi]
		if h.mode != histStep && !h.selected(id) {
			continue
		}
		if TxBase+c.histTx(h, id) > since && c.appliesTo(hi, id) {
			return true
		}
	}
	return false
}
