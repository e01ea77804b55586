package datagen

import (
	"context"
	"fmt"
	"sort"
	"strconv"
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
}

func newStreamer(c *compiled) *streamer {
	st := &streamer{c: c}
	for _, p := range c.phases {
		k, h := c.byKind[p.Entity], -1
		if p.Name != PhaseInitial {
			h = c.histIndex(p.Name)
		}
		st.kind = append(st.kind, k)
		st.hist = append(st.hist, h)
	}
	return st
}

func (c *compiled) histIndex(name string) int {
	for i := range c.hists {
		if c.hists[i].name == name {
			return i
		}
	}
	return -1
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
		tx.Datoms = st.fillHistory(&c.hists[h], tx.Datoms[:0], lo, hi, tx.ID)
		return
	}
	tx.Datoms = st.fillInitial(&c.kinds[st.kind[pi]], tx.Datoms[:0], lo, hi, tx.ID)
}

func (st *streamer) fillInitial(kc *kindComp, d []Datom, lo, hi, txid int64) []Datom {
	c := st.c
	buf, fixes := st.buf[:0], st.fixes[:0]
	for id := lo; id < hi; id++ {
		e := kc.base + id
		for _, ai := range kc.attrs {
			a := &c.attrs[ai]
			g := &a.gen
			switch g.kind {
			case GenSeq:
				// Bytes now, one string per tx later: no allocation per datom.
				start := len(buf)
				buf = append(buf, g.prefix...)
				buf = strconv.AppendInt(buf, id, 10)
				buf = append(buf, g.suffix...)
				fixes = append(fixes, strFix{datom: len(d), lo: start, hi: len(buf)})
				d = append(d, Datom{E: e, A: a.info.ID, V: Value{Type: g.typ}, Tx: txid, Added: true})
			case GenSample:
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

func (st *streamer) fillHistory(h *histComp, d []Datom, lo, hi, txid int64) []Datom {
	c := st.c
	a := &c.attrs[h.attr]
	base := c.kinds[h.kind].base
	for id := lo; id < hi; id++ {
		if !h.selected(id) {
			continue
		}
		prev, cur := a.versionValues(id, c.version(h, id))
		d = append(d,
			Datom{E: base + id, A: a.info.ID, V: prev, Tx: txid, Added: false},
			Datom{E: base + id, A: a.info.ID, V: cur, Tx: txid, Added: true})
	}
	return d
}

// selected reports whether history h changes id.
func (h *histComp) selected(id int64) bool {
	return unit(h.sel.draw(id, 0, 0)) < h.frac
}

// version is the value version history h gives id (which it selects):
// one more than the earlier histories on the same attribute that did.
func (c *compiled) version(h *histComp, id int64) int {
	v := 1
	for _, p := range h.prior {
		if c.hists[p].selected(id) {
			v++
		}
	}
	return v
}

// versionValues returns the values of id at versions v-1 and v. Version
// j > 0 re-draws (up to maxRetries times) until it differs from version
// j-1, so each history change is a real change.
func (a *attrComp) versionValues(id int64, v int) (prev, cur Value) {
	g := &a.gen
	cur = g.one(id, verWord(0, 0))
	for j := 1; j <= v; j++ {
		prev = cur
		for r := 0; r <= maxRetries; r++ {
			cur = g.one(id, verWord(j, r))
			if !cur.Equal(prev) {
				break
			}
		}
	}
	return prev, cur
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
