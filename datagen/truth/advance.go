package truth

import (
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
)

// ErrNotAdvanceable marks a truth a write changes in a way the generator
// cannot follow.
var ErrNotAdvanceable = errors.New("cannot be advanced by writes")

// Advance returns base's truth after writes 0..n-1 of generator name
// committed, computed without reading any database: AdvanceJournal over
// a journal of that prefix.
func Advance(base *Truth, w *writes.Writes, name string, n int64) (*Truth, error) {
	j := writes.NewJournal()
	if err := w.CommitPrefix(j, name, n); err != nil {
		return nil, err
	}
	return AdvanceJournal(base, w, j)
}

// stamped is a value with the tx that wrote it.
type stamped struct {
	tx int64
	v  datagen.Value
}

// writeState is the net effect of a journal's writes.
type writeState struct {
	c        *model
	over     map[int]map[int64]stamped       // attribute -> id -> the committed update with the greatest tx
	inserted map[int]map[int64]int64         // kind -> inserted id -> its tx
	updated  map[int][]int64                 // kind -> loaded ids some update wrote, ascending
	insIDs   map[int][]int64                 // kind -> inserted ids, ascending
	finals   map[int]map[int64]datagen.Value // attribute -> loaded id -> value after the writes
	adds     map[int]map[int64]stamped       // attribute -> id -> the sum of the committed deltas, the greatest tx
}

// add records a committed delta d to attribute ai of id in tx.
func (s *writeState) add(ai int, id, tx, d int64) {
	m := s.adds[ai]
	if m == nil {
		m = map[int64]stamped{}
		s.adds[ai] = m
	}
	x := m[id]
	x.v.Int += d
	x.tx = max(x.tx, tx)
	m[id] = x
}

// applyAdds turns the summed deltas into values after the writes: the
// loaded (or inserted) value plus the deltas. Additions commute, so the
// order they committed in does not matter. An entity without a value
// keeps none: the SQL's v = v + :delta changes no row.
func (s *writeState) applyAdds() {
	var vals []datagen.Value
	var scratch []int64
	for ai, m := range s.adds {
		for id, x := range m {
			vals, scratch = s.c.valuesAsOf(ai, id, -1, vals[:0], scratch)
			if len(vals) == 0 {
				continue
			}
			v := vals[0]
			v.Int += x.v.Int
			s.set(ai, id, x.tx, v)
		}
	}
}

func (s *writeState) set(ai int, id, tx int64, v datagen.Value) {
	m := s.over[ai]
	if m == nil {
		m = map[int64]stamped{}
		s.over[ai] = m
	}
	if cur, ok := m[id]; !ok || tx > cur.tx {
		m[id] = stamped{tx, v}
	}
}

// settle drops the updates that change nothing (of an entity whose
// insert did not commit, or that lost to its insert's greater tx) and
// lists the touched ids.
func (s *writeState) settle() {
	upd := map[int]map[int64]bool{}
	for ai, m := range s.over {
		k := s.c.attrs[ai].kind
		n := s.c.kinds[k].count
		for id, x := range m {
			if id < n {
				if upd[k] == nil {
					upd[k] = map[int64]bool{}
				}
				upd[k][id] = true
			} else if itx, ok := s.inserted[k][id]; !ok || x.tx < itx {
				delete(m, id)
			}
		}
	}
	sorted := func(m map[int64]bool) []int64 {
		out := make([]int64, 0, len(m))
		for id := range m {
			out = append(out, id)
		}
		sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
		return out
	}
	for k, m := range upd {
		s.updated[k] = sorted(m)
	}
	for k, m := range s.inserted {
		ids := make([]int64, 0, len(m))
		for id := range m {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
		s.insIDs[k] = ids
	}
}

// value is the value an update gave attribute ai of id, if any.
func (s *writeState) value(ai int, id int64) (datagen.Value, bool) {
	x, ok := s.over[ai][id]
	return x.v, ok
}

// final is the value after the writes of attribute ai per loaded id an
// update wrote.
func (s *writeState) final(ai int) map[int64]datagen.Value {
	if f, ok := s.finals[ai]; ok {
		return f
	}
	f := map[int64]datagen.Value{}
	n := s.c.kinds[s.c.attrs[ai].kind].count
	for id, x := range s.over[ai] {
		if id < n {
			f[id] = x.v
		}
	}
	s.finals[ai] = f
	return f
}

// pathValues is model.pathValues after the writes: a one-hop path
// reads an updated value (a deeper path through a written attribute is
// stale, and never asked).
func (s *writeState) pathValues(p *pathComp, id int64, dst []datagen.Value, b *pathBuf) []datagen.Value {
	if len(p.hops) == 1 {
		if v, ok := s.value(p.hops[0], id); ok {
			return append(dst, v)
		}
	}
	return s.c.pathValues(p, id, -1, dst, b)
}

// matches is model.matches after the writes.
func (s *writeState) matches(fs []filterComp, id int64, b *pathBuf) bool {
	for i := range fs {
		if !s.match(&fs[i], id, b) {
			return false
		}
	}
	return true
}

func (s *writeState) match(f *filterComp, id int64, b *pathBuf) bool {
	if f.op == "or" {
		for i := range f.any {
			if s.match(&f.any[i], id, b) {
				return true
			}
		}
		return false
	}
	if len(f.path.hops) == 1 {
		if v, ok := s.value(f.path.hops[0], id); ok {
			return matchOne(f.path.last(s.c).info.Class, f, v)
		}
	}
	return s.c.match(f, id, b)
}

// entry is model.entry (current values) after the writes.
func (s *writeState) entry(k int, id int64, attrs []pathComp) Entry {
	e := s.c.entry(k, id, attrs, nil, -1)
	for i := range attrs {
		if p := &attrs[i]; len(p.hops) == 1 {
			if v, ok := s.value(p.hops[0], id); ok {
				e.Fields[p.name] = v.Any()
			}
		}
	}
	return e
}

// with returns s with entity e added (e not in s).
func (s IDSet) with(e int64) IDSet {
	head := append(make([]int64, 0, len(s.Head)+1), s.Head...)
	i := sort.Search(len(head), func(i int) bool { return head[i] > e })
	head = append(head, 0)
	copy(head[i+1:], head[i:])
	head[i] = e
	if len(head) > IDHeadLen {
		head = head[:IDHeadLen]
	}
	return IDSet{N: s.N + 1, Hash: s.Hash + idMix(e), Head: head}
}

// AdvanceJournal returns base's truth after every write in j committed,
// computed without reading any database.
//
// An (entity, attribute) several committed writes touch ends with the
// value of the one with the greatest tx, whatever order they committed
// in: a workload with several writers guards its update with tx < :tx, so
// the store ends as if the writes committed in tx order. An insert writes
// each attribute of its entity in its tx; an update of an entity whose
// insert is not in j, or with a smaller tx than the insert, changes
// nothing (an update of an inserted entity is assumed to commit after its
// insert, as a chooser over committed entities ensures).
//
// Truth declarations the writes do not touch keep their values (a truth
// as of a mark before the writes never changes); samples are of loaded
// entities. Counts and count_bys count the committed inserts that match
// their filters, and their id sets follow the inserts exactly, but not
// updates (an update may drop an id from a set's head, which the base
// truth cannot refill): a counting truth an update touches has no id set
// after. A declaration the writes touch in a way the generator cannot
// follow is left out of Values and named in the error, which wraps
// ErrNotAdvanceable.
//
// Time and memory are O(committed writes): the net effect per touched
// entity, then per truth a pass over the touched and inserted entities.
func AdvanceJournal(base *Truth, w *writes.Writes, j *writes.Journal) (*Truth, error) {
	c, err := compile(w.Dataset())
	if err != nil {
		return nil, err
	}
	out := *base
	out.Values = make(map[string]any, len(base.Values))
	for k, v := range base.Values {
		out.Values[k] = v
	}
	s := &writeState{c: c, over: map[int]map[int64]stamped{}, inserted: map[int]map[int64]int64{},
		updated: map[int][]int64{}, insIDs: map[int][]int64{}, finals: map[int]map[int64]datagen.Value{},
		adds: map[int]map[int64]stamped{}}
	var active []*gen
	for _, name := range j.Generators() {
		g, ok := genOf(c, w, name)
		if !ok {
			return nil, fmt.Errorf("datagen: journal: no write %q declared", name)
		}
		cs := j.Committed(name)
		if len(cs) == 0 {
			continue
		}
		active = append(active, g)
		kc := &c.kinds[g.kind]
		for i, cm := range cs {
			if i > 0 && cs[i-1].K == cm.K {
				if cs[i-1].E != cm.E {
					return nil, fmt.Errorf("datagen: journal: write %d of %q committed to both entity %d and %d", cm.K, name, cs[i-1].E, cm.E)
				}
				continue
			}
			if err := w.Check(name, cm.K); err != nil {
				return nil, fmt.Errorf("datagen: journal: %w", err)
			}
			tx := w.Tx(name, cm.K)
			if len(g.steps) > 0 {
				if err := s.applyTx(w, name, cm); err != nil {
					return nil, err
				}
				continue
			}
			if g.insert {
				id := kc.count + cm.K
				if cm.E != kc.base+id {
					return nil, fmt.Errorf("datagen: journal: insert %d of %q creates entity %d, not %d", cm.K, name, kc.base+id, cm.E)
				}
				if s.inserted[g.kind] == nil {
					s.inserted[g.kind] = map[int64]int64{}
				}
				s.inserted[g.kind][id] = tx
				continue
			}
			if cm.E < kc.base || cm.E >= kc.base+datagen.EntityBase {
				return nil, fmt.Errorf("datagen: journal: write %d of %q: entity %d is not a %q", cm.K, name, cm.E, g.entity)
			}
			a, v := w.Update(name, cm.K)
			if g.add {
				s.add(int(a)-1, cm.E-kc.base, tx, v.Int)
			} else {
				s.set(int(a)-1, cm.E-kc.base, tx, v)
			}
		}
	}
	if len(active) == 0 {
		return &out, nil
	}
	s.applyAdds()
	s.settle()
	ids, _ := base.Values[datagen.IDsKey].(map[string]any)
	if ids != nil {
		ids = maps.Clone(ids)
		out.Values[datagen.IDsKey] = ids
	}
	var stale []string
	staleBy := map[string]bool{}
	firstTx := datagen.TxBase + c.ds.TxCount()
	var b pathBuf
	for i := range c.truth {
		tc := &c.truth[i]
		name := tc.decl.Name
		upd, ins, isStale := false, false, false
		for _, ag := range active {
			for _, g := range ag.parts() {
				st, t := goesStale(c, g, tc)
				switch {
				case st:
					isStale = true
					staleBy[g.name] = true
				case t == touchNone:
				case g.insert:
					ins = true
				default:
					upd = true
				}
			}
		}
		if isStale {
			stale = append(stale, name)
			delete(out.Values, name)
			delete(ids, name)
			continue
		}
		if !upd && !ins {
			continue
		}
		var set any // the id set after, nil: not followed
		switch tc.decl.Kind {
		case datagen.TruthCountBy:
			out.Values[name], set = s.countBy(tc, base.Values[name], ids[name], upd, ins, &b)
		case datagen.TruthCount:
			out.Values[name], set = s.count(tc, base.Values[name], ids[name], upd, ins, &b)
		case datagen.TruthChangedSince:
			if tc.since >= firstTx {
				continue
			}
			out.Values[name], set = s.changedSince(tc, base.Values[name], ids[name], upd, ins)
		case datagen.TruthSample:
			out.Values[name] = s.replaceAll(base.Values[name], tc.attrs, false)
			continue
		case datagen.TruthInverse:
			v := base.Values[name]
			if upd {
				v = s.replaceAll(v, tc.attrs, false)
				v = s.replaceAll(v, tc.refAttrs, true)
			}
			if ins {
				v = s.inverseInserts(tc, v)
			}
			out.Values[name] = v
			continue
		case datagen.TruthSum, datagen.TruthMin, datagen.TruthMax:
			out.Values[name] = s.aggregate(tc, base.Values[name], &b)
			continue
		}
		if ids == nil {
			continue
		}
		if set == nil {
			delete(ids, name)
		} else {
			ids[name] = set
		}
	}
	if len(stale) > 0 {
		sort.Strings(stale)
		by := make([]string, 0, len(staleBy))
		for n := range staleBy {
			by = append(by, fmt.Sprintf("%q", n))
		}
		sort.Strings(by)
		what := "write"
		if len(by) > 1 {
			what = "writes"
		}
		return &out, fmt.Errorf("truth %v: %w (%s %s)", stale, ErrNotAdvanceable, what, strings.Join(by, ", "))
	}
	return &out, nil
}

// countBy follows a count_by truth: the updated loaded entities move
// from their old values to their new ones, the inserted ones add theirs.
func (s *writeState) countBy(tc *truthComp, old, oldIDs any, upd, ins bool, b *pathBuf) (map[string]int64, any) {
	m := maps.Clone(old.(map[string]int64))
	if m == nil {
		m = map[string]int64{}
	}
	var sets map[string]IDSet
	if o, ok := oldIDs.(map[string]IDSet); ok && !upd {
		sets = maps.Clone(o)
	}
	var vals []datagen.Value
	if upd {
		for _, id := range s.updated[tc.kind] {
			if s.c.matches(tc.filters, id, b) {
				vals = s.c.pathValues(&tc.path, id, -1, vals[:0], b)
				for j, v := range vals {
					if dupBefore(vals, j) {
						continue
					}
					if k := v.String(); m[k] > 1 {
						m[k]--
					} else {
						delete(m, k)
					}
				}
			}
			if s.matches(tc.filters, id, b) {
				vals = s.pathValues(&tc.path, id, vals[:0], b)
				for j, v := range vals {
					if !dupBefore(vals, j) {
						m[v.String()]++
					}
				}
			}
		}
	}
	if ins {
		base := s.c.kinds[tc.kind].base
		for _, id := range s.insIDs[tc.kind] {
			if !s.matches(tc.filters, id, b) {
				continue
			}
			vals = s.pathValues(&tc.path, id, vals[:0], b)
			for j, v := range vals {
				if dupBefore(vals, j) {
					continue
				}
				k := v.String()
				m[k]++
				if sets != nil {
					sets[k] = sets[k].with(base + id)
				}
			}
		}
	}
	if sets == nil {
		return m, nil
	}
	return m, sets
}

// count follows a count truth.
func (s *writeState) count(tc *truthComp, old, oldIDs any, upd, ins bool, b *pathBuf) (int64, any) {
	cnt, _ := old.(int64)
	set, follow := oldIDs.(IDSet)
	follow = follow && !upd
	if upd {
		for _, id := range s.updated[tc.kind] {
			before, after := s.c.matches(tc.filters, id, b), s.matches(tc.filters, id, b)
			switch {
			case before && !after:
				cnt--
			case after && !before:
				cnt++
			}
		}
	}
	if ins {
		base := s.c.kinds[tc.kind].base
		for _, id := range s.insIDs[tc.kind] {
			if s.matches(tc.filters, id, b) {
				cnt++
				set = set.with(base + id)
			}
		}
	}
	if !follow {
		return cnt, nil
	}
	return cnt, set
}

// changedSince follows a changed_since truth: an updated entity changed
// after the mark (each write logs a retract and an assert) unless it
// already had; an inserted entity has a datom of every attribute it has
// a value of.
func (s *writeState) changedSince(tc *truthComp, old, oldIDs any, upd, ins bool) (int64, any) {
	cnt, _ := old.(int64)
	set, follow := oldIDs.(IDSet)
	follow = follow && !upd
	if upd {
		over := s.over[tc.attr]
		for _, id := range s.updated[tc.kind] {
			if _, ok := over[id]; ok && !s.c.changedAfter(tc.attr, id, tc.since) {
				cnt++
			}
		}
	}
	if ins {
		base := s.c.kinds[tc.kind].base
		var vals []datagen.Value
		var scratch []int64
		for _, id := range s.insIDs[tc.kind] {
			vals, scratch = s.c.valuesAsOf(tc.attr, id, -1, vals[:0], scratch)
			if len(vals) > 0 {
				cnt++
				set = set.with(base + id)
			}
		}
	}
	if !follow {
		return cnt, nil
	}
	return cnt, set
}

// replaceAll lays the updated values of the one-hop attributes of paths
// over a []Entry truth (over each entry's refs when refs is set).
func (s *writeState) replaceAll(v any, paths []pathComp, refs bool) any {
	for i := range paths {
		p := &paths[i]
		if len(p.hops) != 1 {
			continue
		}
		if f := s.final(p.hops[0]); len(f) > 0 {
			v = replaceFields(v, p.name, f, refs)
		}
	}
	return v
}

// inverseInserts adds the inserted entities whose ref points at a sample
// to its refs: their entity ids follow every loaded one, so the refs stay
// sorted by E.
func (s *writeState) inverseInserts(tc *truthComp, v any) any {
	entries, ok := v.([]Entry)
	if !ok {
		return v
	}
	index := make(map[int64]int, len(entries))
	for i := range entries {
		index[entries[i].E] = i
	}
	out := append([]Entry(nil), entries...)
	var vals []datagen.Value
	var scratch []int64
	for _, id := range s.insIDs[tc.refKind] {
		vals, scratch = s.c.valuesAsOf(tc.attr, id, -1, vals[:0], scratch)
		for _, x := range vals {
			i, ok := index[x.Int]
			if !ok {
				continue
			}
			if len(out[i].Refs) == len(entries[i].Refs) {
				out[i].Refs = append([]Entry{}, entries[i].Refs...)
			}
			out[i].Refs = append(out[i].Refs, s.entry(tc.refKind, id, tc.refAttrs))
		}
	}
	return out
}

// aggregate follows an integer sum, a min or a max over inserts, and a
// sum over additions to loaded entities (another update touching one
// makes it stale).
func (s *writeState) aggregate(tc *truthComp, old any, b *pathBuf) any {
	accs := map[string]*aggAcc{}
	var vals, keys []datagen.Value
	if tc.decl.Kind == datagen.TruthSum {
		// Filters and groups are of attributes the additions do not touch
		// (sumFollows): each entity moves its group's sum by new - old.
		var olds []datagen.Value
		for _, id := range s.updated[tc.kind] {
			if !s.c.matches(tc.filters, id, b) {
				continue
			}
			vals = s.pathValues(&tc.path, id, vals[:0], b)
			olds = s.c.pathValues(&tc.path, id, -1, olds[:0], b)
			if len(vals) == 0 && len(olds) == 0 {
				continue // no value to sum, before or after
			}
			var diff int64
			for _, v := range vals {
				diff += v.Int
			}
			for _, v := range olds {
				diff -= v.Int
			}
			keys = keys[:0]
			if tc.by != nil {
				keys = s.c.pathValues(tc.by, id, -1, keys, b)
			} else {
				keys = append(keys, datagen.Value{})
			}
			for j, k := range keys {
				if dupBefore(keys, j) {
					continue
				}
				g := accs[k.String()]
				if g == nil {
					g = &aggAcc{}
					accs[k.String()] = g
				}
				g.n++
				g.isum += diff
			}
		}
	}
	for _, id := range s.insIDs[tc.kind] {
		if !s.matches(tc.filters, id, b) {
			continue
		}
		vals = s.pathValues(&tc.path, id, vals[:0], b)
		if len(vals) == 0 {
			continue
		}
		keys = keys[:0]
		if tc.by != nil {
			keys = s.pathValues(tc.by, id, keys, b)
		} else {
			keys = append(keys, datagen.Value{})
		}
		for j, k := range keys {
			if dupBefore(keys, j) {
				continue
			}
			g := accs[k.String()]
			if g == nil {
				g = &aggAcc{}
				accs[k.String()] = g
			}
			for _, v := range vals {
				g.add(v)
			}
		}
	}
	t := tc.path.last(s.c).info.Type
	if tc.by == nil {
		return combineAgg(tc.decl.Kind, t, old, accs[""])
	}
	m, _ := old.(map[string]any)
	m = maps.Clone(m)
	if m == nil {
		m = map[string]any{}
	}
	for k, g := range accs {
		m[k] = combineAgg(tc.decl.Kind, t, m[k], g)
	}
	return m
}

// combineAgg adds the inserted values in g to the base answer old.
func combineAgg(kind datagen.TruthKind, t datagen.ValueType, old any, g *aggAcc) any {
	if g == nil || g.n == 0 {
		return old
	}
	if kind == datagen.TruthSum {
		o, _ := old.(int64)
		return o + g.isum
	}
	cand := g.max
	if kind == datagen.TruthMin {
		cand = g.min
	}
	var ov datagen.Value
	switch x := old.(type) {
	case int64:
		ov = datagen.Value{Type: t, Int: x}
	case float64:
		ov = datagen.Value{Type: t, Float: x}
	default:
		return cand.Any() // no base values
	}
	if r := cand.Compare(ov); kind == datagen.TruthMin && r < 0 || kind == datagen.TruthMax && r > 0 {
		return cand.Any()
	}
	return old
}

// applyTx records committed transaction write cm of name: every step's
// effect in the write's tx, the truth advancing by all of them.
func (s *writeState) applyTx(w *writes.Writes, name string, cm writes.Committed) error {
	op, err := w.TxOp(name, cm.K)
	if err != nil {
		return fmt.Errorf("datagen: journal: %w", err)
	}
	infos := w.Steps(name)
	if cm.D != nil && len(cm.D) != len(op.Steps) {
		return fmt.Errorf("datagen: journal: write %d of %q records %d deltas for %d steps", cm.K, name, len(cm.D), len(op.Steps))
	}
	for i, st := range op.Steps {
		k := s.c.byKind[st.Entity]
		switch {
		case st.Insert:
			if s.inserted[k] == nil {
				s.inserted[k] = map[int64]int64{}
			}
			s.inserted[k][st.ID] = op.Tx
		case st.Add:
			d := st.Value.Int
			if cm.D != nil {
				d = cm.D[i]
			} else if infos[i].Runtime {
				return fmt.Errorf("datagen: journal: write %d of %q: step %q adds a delta computed at run time, and the journal does not record it", cm.K, name, infos[i].Name)
			}
			s.add(int(st.A)-1, st.ID, op.Tx, d)
		default:
			s.set(int(st.A)-1, st.ID, op.Tx, st.Value)
		}
	}
	return nil
}
