package writetx

import (
	"context"
	"fmt"

	"github.com/mentat-spec/mentat-spec/datagen/writes"
)

// txShape is what a transaction write's parameters are made of (TxParams):
// Prepare resolves each statement's parameter names against it once.
type txShape struct {
	steps  []writes.StepInfo
	draws  []string
	idents map[string][]string
	many   map[string]bool // cardinality-many attributes of inserting steps
}

type srcKind uint8

const (
	srcNone srcKind = iota // a name nothing binds: NULL, as TxArgs leaves it
	srcK
	srcTx
	srcDraw
	srcE
	srcA
	srcV
	srcAttr
)

// source is where one parameter's value comes from in a TxOp.
type source struct {
	kind srcKind
	step int
	name string // a draw's name, an inserted attribute's ident
	many bool
}

// binder binds a transaction's statements straight from its TxOp and
// deltas: no name looked up, no map built per transaction, the argument
// lists reused (the drivers encode them before a call returns).
type binder struct {
	read   []source
	stmts  [][]source
	rargs  []any
	args   [][]any
	values bool // some statement binds an inserted attribute's value
}

// sources maps each parameter name a transaction write binds to its
// source, with TxArgs' precedence: a step's names over a draw's over
// :k and :tx.
func (sh *txShape) sources() map[string]source {
	m := map[string]source{"k": {kind: srcK}, "tx": {kind: srcTx}}
	for _, d := range sh.draws {
		m[d] = source{kind: srcDraw, name: d}
	}
	for i, s := range sh.steps {
		m[s.Name+"_e"] = source{kind: srcE, step: i}
		if s.Insert {
			for _, id := range sh.idents[s.Name] {
				m[s.Name+"_"+ParamName(id)] = source{kind: srcAttr, step: i, name: id, many: sh.many[id]}
			}
			continue
		}
		m[s.Name+"_a"] = source{kind: srcA, step: i}
		m[s.Name+"_v"] = source{kind: srcV, step: i}
	}
	return m
}

func newBinder(sh *txShape, rnames []string, names [][]string) *binder {
	m := sh.sources()
	b := &binder{}
	resolve := func(ns []string) []source {
		out := make([]source, len(ns))
		for i, n := range ns {
			out[i] = m[n]
			b.values = b.values || out[i].kind == srcAttr
		}
		return out
	}
	b.read = resolve(rnames)
	b.rargs = make([]any, len(rnames))
	for _, ns := range names {
		b.stmts = append(b.stmts, resolve(ns))
		b.args = append(b.args, make([]any, len(ns)))
	}
	return b
}

// bind fills out from op and deltas, as TxArgs would bind each name.
func bindOp(out []any, srcs []source, op *writes.TxOp, deltas []int64) []any {
	for i, s := range srcs {
		var v any
		switch s.kind {
		case srcK:
			v = op.K
		case srcTx:
			v = op.Tx
		case srcDraw:
			if n, ok := op.Draws[s.name]; ok {
				v = n
			}
		case srcE:
			v = op.Steps[s.step].E
		case srcA:
			v = int64(op.Steps[s.step].A)
		case srcV:
			if st := &op.Steps[s.step]; st.Add {
				v = deltas[s.step]
			} else {
				v = st.Value.Any()
			}
		case srcAttr:
			vals := op.Steps[s.step].Values
			for j := len(vals) - 1; j >= 0; j-- {
				if vals[j].Attr == s.name {
					v = attrArg(vals[j], s.many)
					break
				}
			}
		}
		out[i] = v
	}
	return out
}

// BindsValues says whether the transaction's statements bind an inserted
// entity's attribute values (TxOpInto's values).
func (tx *Tx) BindsValues() bool { return tx.bnd != nil && tx.bnd.values }

// RunOp runs transaction op as RunDecide does, binding every statement
// from op and deltas (deltas[i]: what step i adds, which decide may set
// after the read; the read binds them as they are when RunOp is called).
// The transaction must have been prepared with TxParams' parameters.
func (tx *Tx) RunOp(ctx context.Context, op *writes.TxOp, deltas []int64, decide Decide) (err error, atCommit, aborted bool) {
	b := tx.bnd
	if b == nil {
		return fmt.Errorf("writetx: RunOp of statements not prepared for a transaction write"), false, false
	}
	return tx.run(ctx, func(i int) []any {
		if i < 0 {
			return bindOp(b.rargs, b.read, op, deltas)
		}
		return bindOp(b.args[i], b.stmts[i], op, deltas)
	}, decide)
}
