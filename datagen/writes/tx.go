package writes

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen"
)

// Step is one step of a transaction write: an update (an assignment or
// an addition) or an insert of one entity. The entity is drawn by Target
// (a key chooser; with DistinctFrom redrawn until it differs from that
// earlier step's entity), or is the one an earlier step's entity refers
// to (Via = "STEP.ref/attr"), or is that step's own entity (Via =
// "STEP"), or, for an insert, a new one.
type Step struct {
	Name         string
	Entity       string
	Target       datagen.Generator
	Via          string
	DistinctFrom string
	Attr         string
	Value        datagen.Generator // assignment: the new value; unset (no delta either): a redraw of Attr's gen
	Delta        datagen.Generator // addition: a delta drawn per write
	DeltaExpr    Expr              // addition: a delta the engine computes at run time
	Insert       bool
}

// Draw is a named value drawn per write k (a whole number).
type Draw struct {
	Name string
	Gen  datagen.Generator
}

// Expr is an expression the engine evaluates at run time over a
// transaction's draws and the columns its read returned. The dataset only
// carries it: the truth follows the deltas the engine records.
type Expr interface {
	Int(draws map[string]int64, read map[string]any) (int64, error)
	Bool(draws map[string]int64, read map[string]any) (bool, error)
}

// TxOp is write k of a transaction: its draws and one Op per step, in
// declaration order. A step whose delta is computed at run time has a
// zero Value; the engine records the delta it applied.
type TxOp struct {
	K, Tx int64
	Draws map[string]int64
	Steps []Op

	scratch []int64         // TxOpInto's buffers, kept for the next write
	via     []datagen.Value // the values of a ref a step follows
}

type txGen struct {
	decl  Decl
	steps []stepGen
	draws []*datagen.CompiledGenerator
}

type stepGen struct {
	s        Step
	count    int64
	base     int64
	attr     datagen.AttrInfo
	value    *datagen.CompiledGenerator // assignment value or drawn delta
	add      bool
	target   *datagen.CompiledGenerator
	via      int   // earlier step, -1: none
	viaAttr  int32 // its ref attribute
	distinct int   // earlier step to differ from, -1: none
}

// StepInfo is what the truth needs of a transaction step.
type StepInfo struct {
	Name   string
	Entity string
	Attr   datagen.AttrInfo // update
	Add    bool
	Insert bool
	// Runtime: the delta is computed at run time, so only a journal with
	// deltas (Committed.D) says what it added.
	Runtime bool
}

// IsTx says whether generator name is a transaction of steps.
func (w *Writes) IsTx(name string) bool {
	if w == nil {
		return false
	}
	_, ok := w.txs[name]
	return ok
}

// Steps describes transaction name's steps (nil for another write).
func (w *Writes) Steps(name string) []StepInfo {
	t, ok := w.txs[name]
	if !ok {
		return nil
	}
	out := make([]StepInfo, len(t.steps))
	for i, sg := range t.steps {
		out[i] = StepInfo{Name: sg.s.Name, Entity: sg.s.Entity, Attr: sg.attr, Add: sg.add, Insert: sg.s.Insert, Runtime: sg.s.DeltaExpr != nil}
	}
	return out
}

// Additive says whether update generator name adds deltas.
func (w *Writes) Additive(name string) bool {
	g, ok := w.gens[name]
	return ok && g.add
}

func (w *Writes) newTx(d Decl, inserts map[string]string) (*txGen, error) {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("write %q: "+format, append([]any{d.Name}, args...)...))
	}
	if d.Entity != "" || d.Attr != "" || len(d.Attrs) > 0 || d.Value.Kind != "" || d.Target.Kind != "" || d.Insert || d.Delta.Kind != "" {
		bad("a transaction says what it writes in its steps: entity, attr, attrs, value, delta, target and insert belong to them")
		return nil, errors.Join(errs...)
	}
	ds := w.ds
	t := &txGen{decl: d}
	seenDraw := map[string]bool{}
	for _, dr := range d.Draws {
		if seenDraw[dr.Name] {
			bad("draw %q declared twice", dr.Name)
			continue
		}
		if !paramName(dr.Name) || dr.Name == "k" || dr.Name == "tx" {
			bad("draw %q: a draw is bound as :%s, so its name is letters, digits and _ (not k or tx)", dr.Name, dr.Name)
			continue
		}
		seenDraw[dr.Name] = true
		switch dr.Gen.Kind {
		case datagen.GenUniformInt, datagen.GenWeighted, datagen.GenConst:
		default:
			bad("draw %q: a draw is a whole number: uniform, weighted or const, not %s", dr.Name, dr.Gen.Kind)
			continue
		}
		entity := ""
		for _, s := range d.Steps {
			entity = s.Entity
			break
		}
		cg, err := ds.CompileGenerator(datagen.AttrInfo{Attr: datagen.Attr{Ident: "write " + d.Name + " draw " + dr.Name, Type: datagen.TypeLong, Gen: dr.Gen}, Entity: entity, Class: datagen.ClassInt})
		if err != nil {
			bad("draw %q: %v", dr.Name, err)
			continue
		}
		t.draws = append(t.draws, cg)
	}
	index := map[string]int{}
	for i, s := range d.Steps {
		sbad := func(format string, args ...any) { bad("step %q: "+format, append([]any{s.Name}, args...)...) }
		if _, dup := index[s.Name]; dup || s.Name == "" {
			sbad("declared twice")
			continue
		}
		index[s.Name] = i
		base, err := ds.EntityID(s.Entity, 0)
		if err != nil {
			sbad("entity %q is not an entity", s.Entity)
			continue
		}
		sg := stepGen{s: s, count: ds.Count(s.Entity), base: base, via: -1, distinct: -1}
		ident := "write " + d.Name + " step " + s.Name
		if s.Insert {
			if s.Attr != "" || s.Value.Kind != "" || s.Delta.Kind != "" || s.DeltaExpr != nil || s.Target.Kind != "" || s.Via != "" || s.DistinctFrom != "" {
				sbad("an insert draws every attribute from the entity's own generators: attr, value, delta, target, via and distinct_from belong to updates")
				continue
			}
			if why := ds.InsertProblem(s.Entity); why != "" {
				sbad("cannot insert %q entities: %s", s.Entity, why)
				continue
			}
			if prev, ok := inserts[s.Entity]; ok {
				sbad("write %q already inserts %q entities: a kind has one insert generator, whose k numbers its new ids", prev, s.Entity)
				continue
			}
			inserts[s.Entity] = d.Name
			t.steps = append(t.steps, sg)
			continue
		}
		// Which entity.
		switch {
		case s.Via != "":
			if s.Target.Kind != "" || s.DistinctFrom != "" {
				sbad("via names the entity: target and distinct_from do not apply")
				continue
			}
			from, attr, hasAttr := strings.Cut(s.Via, ".")
			j, known := index[from]
			if !known || j >= i {
				sbad("via = %q must be \"STEP.ref/attr\" or \"STEP\", STEP an earlier step", s.Via)
				continue
			}
			prev := d.Steps[j]
			if prev.Insert {
				sbad("via %q: step %q inserts; follow a ref of a loaded entity", s.Via, from)
				continue
			}
			if !hasAttr { // the same entity as step from
				if prev.Entity != s.Entity {
					sbad("via %q: step %q writes %q entities, not %q", s.Via, from, prev.Entity, s.Entity)
					continue
				}
				sg.via = j
				break
			}
			a, ok := ds.Attr(attr)
			if !ok || a.Entity != prev.Entity || a.Type != datagen.TypeRef || a.Many {
				sbad("via %q: %q is not a cardinality-one ref attribute of %q", s.Via, attr, prev.Entity)
				continue
			}
			if a.Gen.Target != s.Entity {
				sbad("via %q: %q refers to %q entities, not %q", s.Via, attr, a.Gen.Target, s.Entity)
				continue
			}
			sg.via, sg.viaAttr = j, a.ID
		default:
			if !datagen.IsKeyChooser(s.Target.Kind) || s.Target.Target != s.Entity {
				sbad("target must be a key chooser over %q (ref, zipf, scrambled_zipf, latest or hotspot), or set via", s.Entity)
				continue
			}
			tg, err := ds.CompileGenerator(datagen.AttrInfo{Attr: datagen.Attr{Ident: ident + " target", Type: datagen.TypeRef, Gen: s.Target}, Entity: s.Entity, Class: datagen.ClassInt})
			if err != nil {
				sbad("%v", err)
				continue
			}
			sg.target = tg
			if s.DistinctFrom != "" {
				j, known := index[s.DistinctFrom]
				if !known || j >= i || d.Steps[j].Entity != s.Entity || d.Steps[j].Insert {
					sbad("distinct_from = %q must name an earlier update step of %q", s.DistinctFrom, s.Entity)
					continue
				}
				if sg.count < 2 {
					sbad("distinct_from needs two %q entities, the load has %d", s.Entity, sg.count)
					continue
				}
				sg.distinct = j
			}
		}
		// What it writes.
		a, ok := ds.Attr(s.Attr)
		switch {
		case s.Attr == "":
			sbad("an update needs attr (or insert = true)")
			continue
		case !ok:
			sbad("attr %q is not an attribute", s.Attr)
			continue
		case a.Entity != s.Entity:
			sbad("attr %q belongs to entity %q, not %q", s.Attr, a.Entity, s.Entity)
			continue
		case a.Many || a.Unique:
			sbad("attr %q must be cardinality one and not unique", s.Attr)
			continue
		}
		n := 0
		for _, set := range []bool{s.Value.Kind != "", s.Delta.Kind != "", s.DeltaExpr != nil} {
			if set {
				n++
			}
		}
		if n > 1 {
			sbad("set value (an assignment) or delta (an addition), not both")
			continue
		}
		sg.attr = a
		sg.add = s.Delta.Kind != "" || s.DeltaExpr != nil
		val := a
		switch {
		case sg.add:
			if a.Type != datagen.TypeLong {
				sbad("attr %q is a %s: a delta adds to a long", s.Attr, a.Type)
				continue
			}
			if s.DeltaExpr != nil {
				t.steps = append(t.steps, sg)
				continue
			}
			val.Ident, val.Gen = ident+" delta", s.Delta
		case s.Value.Kind != "":
			val.Ident, val.Gen = ident+" value", s.Value
		default:
			switch a.Gen.Kind {
			case datagen.GenSeq, datagen.GenConst, datagen.GenParent, datagen.GenOrdinal, datagen.GenOffset:
				sbad("attr %q uses a %s generator, which a write cannot redraw: set value", s.Attr, a.Gen.Kind)
				continue
			}
			val.Ident = ident + " redraw"
		}
		vg, err := ds.CompileGenerator(val)
		if err != nil {
			sbad("%v", err)
			continue
		}
		sg.value = vg
		t.steps = append(t.steps, sg)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return t, nil
}

// mixedForms refuses an attribute one write assigns and another adds to
// (an assignment does not commute with an addition, so no truth follows
// both), and a ref a step follows (via) that a write changes.
func (w *Writes) mixedForms() []error {
	assigned, added, followed := map[string]string{}, map[string]string{}, map[string]string{}
	for _, name := range w.names {
		g := w.gens[name]
		if t, ok := w.txs[name]; ok {
			for _, sg := range t.steps {
				if sg.s.Insert {
					continue
				}
				if sg.add {
					added[sg.attr.Ident] = name
				} else {
					assigned[sg.attr.Ident] = name
				}
				if sg.viaAttr != 0 {
					_, attr, _ := strings.Cut(sg.s.Via, ".")
					followed[attr] = name
				}
			}
			continue
		}
		for _, a := range g.attrs {
			if g.add {
				added[a.Ident] = name
			} else {
				assigned[a.Ident] = name
			}
		}
	}
	var errs []error
	for attr, by := range added {
		if other, ok := assigned[attr]; ok {
			errs = append(errs, fmt.Errorf("write %q adds to %q, which write %q assigns: an attribute is either assigned or added to", by, attr, other))
		}
	}
	for attr, by := range followed {
		if other, ok := assigned[attr]; ok {
			errs = append(errs, fmt.Errorf("write %q follows ref %q, which write %q changes: a step follows a ref no write changes", by, attr, other))
		}
	}
	return errs
}

// TxOp returns write k of transaction name.
func (w *Writes) TxOp(name string, k int64) (TxOp, error) {
	var op TxOp
	err := w.TxOpInto(&op, name, k, true)
	return op, err
}

// TxOpInto is TxOp into op, reusing its slices and map: a client that
// draws one transaction after another allocates nothing per write in
// steady state. With values false an inserting step's Values are left
// empty, for a caller whose statements bind none of them (drawing them
// is most of a write's generation).
func (w *Writes) TxOpInto(op *TxOp, name string, k int64, values bool) error {
	t, ok := w.txs[name]
	if !ok {
		return fmt.Errorf("datagen: no transaction write %q declared", name)
	}
	g := w.gens[name]
	if err := w.checkK(g, k); err != nil {
		return fmt.Errorf("datagen: %w", err)
	}
	op.K, op.Tx = k, w.tx(g, k)
	if cap(op.Steps) < len(t.steps) {
		op.Steps = make([]Op, len(t.steps))
	}
	op.Steps = op.Steps[:len(t.steps)]
	if len(t.draws) > 0 {
		if op.Draws == nil {
			op.Draws = make(map[string]int64, len(t.draws))
		}
		clear(op.Draws)
		for i, dg := range t.draws {
			op.Draws[t.decl.Draws[i].Name] = dg.One(k).Int
		}
	} else {
		clear(op.Draws)
	}
	for i := range t.steps {
		sg := &t.steps[i]
		prevValues := op.Steps[i].Values
		so := Op{K: k, Entity: sg.s.Entity, Tx: op.Tx, Add: sg.add}
		switch {
		case sg.s.Insert:
			if k >= datagen.EntityBase-sg.count {
				return fmt.Errorf("datagen: insert %d of %q: id %d is past the %q id space", k, name, sg.count+k, sg.s.Entity)
			}
			so.Insert, so.ID = true, sg.count+k
			so.E = sg.base + so.ID
			so.Values = prevValues[:0]
			if values {
				en, _ := w.ds.Entity(sg.s.Entity)
				for j, a := range en.Attrs {
					var dst []datagen.Value
					if j < cap(prevValues) {
						dst = prevValues[:j+1][j].Values[:0]
					}
					var vals []datagen.Value
					vals, op.scratch = w.ds.ValuesAsOf(a.ID, so.ID, -1, dst, op.scratch)
					cl, _ := a.Type.Class()
					so.Values = append(so.Values, AttrValues{Attr: a.Ident, A: a.ID, Class: cl, Values: vals})
				}
			}
			op.Steps[i] = so
			continue
		case sg.via >= 0 && sg.viaAttr == 0:
			so.E = op.Steps[sg.via].E
		case sg.via >= 0:
			prev := op.Steps[sg.via]
			op.via, op.scratch = w.ds.ValuesAsOf(sg.viaAttr, prev.ID, -1, op.via[:0], op.scratch)
			if len(op.via) == 0 {
				return fmt.Errorf("datagen: write %d of %q: step %q: entity %d has no %s", k, name, sg.s.Name, prev.E, sg.s.Via)
			}
			so.E = op.via[0].Int
		default:
			so.E = sg.target.One(k).Int
			if sg.distinct >= 0 {
				// Redrawn from k's own further draws; a chooser that keeps
				// landing on the same entity takes the next id.
				other := op.Steps[sg.distinct].E
				for j := int64(1); so.E == other && j <= 8; j++ {
					so.E = sg.target.One(k ^ j<<52).Int
				}
				if so.E == other {
					so.E = sg.base + (other-sg.base+1)%sg.count
				}
			}
		}
		so.ID = so.E - sg.base
		so.Attr, so.A = sg.attr.Ident, sg.attr.ID
		if sg.value != nil {
			so.Value = sg.value.One(k)
		}
		op.Steps[i] = so
	}
	return nil
}

// paramName says whether s can be an SQL parameter's name.
func paramName(s string) bool {
	for i, ch := range s {
		if !(ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9') {
			return false
		}
	}
	return s != ""
}

// ReadNeed says what of transaction decl reads read.* (its abort
// condition or a step's delta), "" when nothing does: such a write needs
// its operation's read query. An Expr says so through a Reads method.
func ReadNeed(decl Decl) string {
	reads := func(e Expr) bool {
		r, ok := e.(interface{ Reads() bool })
		return ok && r.Reads()
	}
	if decl.AbortIf != nil && reads(decl.AbortIf) {
		return fmt.Sprintf("write %s's abort_if reads read.*", decl.Name)
	}
	for _, s := range decl.Steps {
		if s.DeltaExpr != nil && reads(s.DeltaExpr) {
			return fmt.Sprintf("step %s of write %s computes its delta from read.*", s.Name, decl.Name)
		}
	}
	return ""
}
