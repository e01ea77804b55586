package writetx

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
)

// TxParams are a transaction write's parameters: :k, :tx, one per draw,
// and per step :STEP_e (its entity), for an update :STEP_a (the attribute
// id) and :STEP_v (the value assigned, or the delta added), for an insert
// one per attribute of the new entity, :STEP_<ParamName(ident)>. idents
// lists the attributes of each inserting step's kind.
func TxParams(steps []writes.StepInfo, draws []string, idents map[string][]string) Params {
	p := Params{Allowed: map[string]bool{"k": true, "tx": true}, tx: &txShape{steps: steps, draws: draws, idents: idents}}
	for _, d := range draws {
		p.Allowed[d] = true
	}
	for _, s := range steps {
		p.Allowed[s.Name+"_e"] = true
		if s.Insert {
			for _, id := range idents[s.Name] {
				p.Allowed[s.Name+"_"+ParamName(id)] = true
			}
			continue
		}
		p.Allowed[s.Name+"_a"], p.Allowed[s.Name+"_v"] = true, true
	}
	names := make([]string, 0, len(p.Allowed))
	for n := range p.Allowed {
		names = append(names, ":"+n)
	}
	sort.Strings(names)
	p.Text = "this transaction binds " + strings.Join(names, ", ")
	return p
}

// TxArgs binds a transaction write's parameters: op, and the value of
// each step (deltas[i] for a step that adds).
func TxArgs(op writes.TxOp, steps []writes.StepInfo, deltas []int64, many func(attr string) bool) map[string]any {
	args := map[string]any{"k": op.K, "tx": op.Tx}
	for n, v := range op.Draws {
		args[n] = v
	}
	for i, s := range op.Steps {
		name := steps[i].Name
		args[name+"_e"] = s.E
		if s.Insert {
			for _, av := range s.Values {
				args[name+"_"+ParamName(av.Attr)] = attrArg(av, many(av.Attr))
			}
			continue
		}
		args[name+"_a"] = int64(s.A)
		if s.Add {
			args[name+"_v"] = deltas[i]
		} else {
			args[name+"_v"] = s.Value.Any()
		}
	}
	return args
}

func attrArg(av writes.AttrValues, many bool) any {
	if !many {
		if len(av.Values) == 0 {
			return nil
		}
		return av.Values[0].Any()
	}
	return Arg(writes.Op{Values: []writes.AttrValues{av}}, map[string]Field{"x": {Index: 0, Many: true}}, "x")
}

// Decide is called inside the transaction after its read (read holds the
// read's first row by column name, empty without a read or a row): abort
// rolls the transaction back as an intended abort.
type Decide func(read map[string]any) (abort bool, err error)

// RunDecide runs the transaction as Run does, calling decide after the
// read and before the statements; the statements' arguments are taken
// after decide, so they may depend on it. aborted: decide said abort,
// and nothing was written (the caller rolls back).
func (tx *Tx) RunDecide(ctx context.Context, arg func(string) any, decide Decide) (err error, atCommit, aborted bool) {
	return tx.run(ctx, func(i int) []any {
		if i < 0 {
			return bind(tx.rnames, arg)
		}
		return bind(tx.names[i], arg)
	}, decide)
}

// run is RunDecide with args(i) the arguments of statement i (-1: the
// read), taken when the statement runs.
func (tx *Tx) run(ctx context.Context, args func(i int) []any, decide Decide) (err error, atCommit, aborted bool) {
	if err := tx.Session.Exec(ctx, "BEGIN"); err != nil {
		return err, false, false
	}
	// The read's row, by column name; one map for the session's
	// transactions, which decide does not keep.
	if tx.row == nil {
		tx.row = map[string]any{}
	}
	read := tx.row
	clear(read)
	if tx.read != nil {
		tx.rows = tx.rows[:0]
		if _, err := tx.read.Query(ctx, args(-1), &tx.rows); err != nil {
			return err, false, false
		}
		if rows := tx.rows; len(rows) > 0 {
			cn, ok := tx.read.(drivers.ColumnNamer)
			if !ok {
				return fmt.Errorf("the driver does not name a read's columns"), false, false
			}
			for i, c := range cn.Columns() {
				if i < len(rows[0]) {
					read[strings.ToLower(c)] = rows[0][i]
				}
			}
		}
	}
	abort, err := decide(read)
	if err != nil {
		return err, false, false
	}
	if abort {
		return nil, false, true
	}
	for i, st := range tx.stmts {
		if _, err := st.Query(ctx, args(i), nil); err != nil {
			return err, false, false
		}
	}
	if err := tx.Session.Exec(ctx, "COMMIT"); err != nil {
		return err, true, false
	}
	return nil, false, false
}
