// Package writetx is one write operation as a transaction: its
// statements prepared on one session (BEGIN, a read-modify-write's read,
// the statements, COMMIT), bound by parameter name from a write of a
// dataset's write generator. It knows no scenario and no cell: the
// runner hands it the statements and the parameters a write may bind.
package writetx

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/kind"
)

// Tx is one write operation's statements prepared on one session.
type Tx struct {
	Session drivers.Session
	read    drivers.Stmt // read-modify-write: run first
	rnames  []string
	stmts   []drivers.Stmt
	names   [][]string
	bnd     *binder        // a transaction write's statements bound from its TxOp (RunOp)
	row     map[string]any // the read's row, reused
	rows    [][]any
}

// Params are the parameters a write's statements may bind, and how a
// diagnostic says so.
type Params struct {
	Allowed map[string]bool
	Text    string
	tx      *txShape // a transaction write's: what its names bind (RunOp)
}

// UpdateParams are an update's: the entity, the attribute, the value,
// the transaction and the write's number.
var UpdateParams = Params{Allowed: map[string]bool{"e": true, "a": true, "v": true, "tx": true, "k": true},
	Text: "an update binds :e (the entity), :a (the attribute id), :v (the value), :tx (the transaction id) and :k (the write's number)"}

// InsertParams are an insert's: :e, :tx and :k, and one per attribute of
// the new entity, named after its ident (ParamName).
func InsertParams(idents []string) Params {
	p := Params{Allowed: map[string]bool{"e": true, "tx": true, "k": true}}
	names := []string{":e", ":tx", ":k"}
	for _, id := range idents {
		p.Allowed[ParamName(id)] = true
		names = append(names, ":"+ParamName(id))
	}
	p.Text = "an insert binds " + strings.Join(names, ", ")
	return p
}

// ParamsOf lists the parameters write generator name of ws binds: an
// update's, for an insert one per attribute of the new entity, and for a
// transaction each step's and each draw's. The runner binds exactly these
// and validation refuses a statement using another, so both read it here.
func ParamsOf(ws *writes.Writes, name string, gen *datagen.Dataset) Params {
	if ws.IsTx(name) {
		return txParamsOf(ws, name, gen)
	}
	decl, _ := ws.Decl(name)
	if !decl.Insert {
		return UpdateParams
	}
	return InsertParams(entityIdents(gen, decl.Entity))
}

// txParamsOf lists the parameters transaction write generator name's
// statements may bind.
func txParamsOf(ws *writes.Writes, name string, gen *datagen.Dataset) Params {
	decl, _ := ws.Decl(name)
	steps := ws.Steps(name)
	var draws []string
	for _, d := range decl.Draws {
		draws = append(draws, d.Name)
	}
	idents := map[string][]string{}
	for _, s := range steps {
		if s.Insert {
			idents[s.Name] = entityIdents(gen, s.Entity)
		}
	}
	p := TxParams(steps, draws, idents)
	p.tx.many = map[string]bool{}
	for _, ids := range idents {
		for _, id := range ids {
			if a, ok := gen.Attr(id); ok && a.Many {
				p.tx.many[id] = true
			}
		}
	}
	return p
}

// entityIdents lists the idents of entity kind entity's attributes.
func entityIdents(gen *datagen.Dataset, entity string) []string {
	var idents []string
	for _, a := range gen.Attrs() {
		if a.Entity == entity {
			idents = append(idents, a.Ident)
		}
	}
	return idents
}

// ParamName is the SQL parameter an insert binds an attribute's value to:
// its ident with every character that is not a letter, a digit or _
// replaced by _ (ycsb/field0 -> ycsb_field0).
func ParamName(ident string) string {
	b := []byte(ident)
	for i, ch := range b {
		if !(ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

// Prepare prepares operation o's statements on s: statements binds a
// query's text for the session's backend, params says what they may use.
func Prepare(ctx context.Context, s drivers.Session, o kind.Operation, statements func(query string) ([]kind.Statement, error), params Params) (*Tx, error) {
	tx := &Tx{Session: s}
	prep := func(query string, read bool) error {
		sts, err := statements(query)
		if err != nil {
			return err
		}
		if read && len(sts) != 1 {
			return fmt.Errorf("read query %s of a read-modify-write must be one statement, has %d", query, len(sts))
		}
		for _, st := range sts {
			for _, n := range st.Names {
				if !params.Allowed[n] {
					return fmt.Errorf("query %s uses :%s; %s", query, n, params.Text)
				}
			}
			ps, err := s.Prepare(ctx, st.SQL)
			if err != nil {
				return fmt.Errorf("query %s: preparing %q: %w", query, st.SQL, err)
			}
			if read {
				tx.read, tx.rnames = ps, st.Names
			} else {
				tx.stmts = append(tx.stmts, ps)
				tx.names = append(tx.names, st.Names)
			}
		}
		return nil
	}
	if o.Read != "" {
		if err := prep(o.Read, true); err != nil {
			tx.Close()
			return nil, fmt.Errorf("operation %s: %w", o.Name, err)
		}
	}
	if err := prep(o.Query, false); err != nil {
		tx.Close()
		return nil, fmt.Errorf("operation %s: %w", o.Name, err)
	}
	if params.tx != nil {
		tx.bnd = newBinder(params.tx, tx.rnames, tx.names)
	}
	return tx, nil
}

// Close closes the prepared statements (not the session).
func (tx *Tx) Close() {
	if tx.read != nil {
		tx.read.Close()
	}
	for _, st := range tx.stmts {
		st.Close()
	}
}

// Run runs the transaction with args (by parameter name). atCommit is
// set when COMMIT itself failed.
func (tx *Tx) Run(ctx context.Context, arg func(string) any) (err error, atCommit bool) {
	if err := tx.Session.Exec(ctx, "BEGIN"); err != nil {
		return err, false
	}
	if tx.read != nil {
		if _, err := tx.read.Query(ctx, bind(tx.rnames, arg), nil); err != nil {
			return err, false
		}
	}
	for i, st := range tx.stmts {
		if _, err := st.Query(ctx, bind(tx.names[i], arg), nil); err != nil {
			return err, false
		}
	}
	if err := tx.Session.Exec(ctx, "COMMIT"); err != nil {
		return err, true
	}
	return nil, false
}

func bind(names []string, arg func(string) any) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = arg(n)
	}
	return out
}

// Field is an insert's attribute parameter: its index in Op.Values, and
// whether the attribute is cardinality many.
type Field struct {
	Index int
	Many  bool
}

// Arg is parameter name of write op; fields maps an insert's attribute
// parameters to op.Values. A cardinality-many attribute binds its values
// as a JSON array.
func Arg(op writes.Op, fields map[string]Field, name string) any {
	switch name {
	case "e":
		return op.E
	case "a":
		return int64(op.A)
	case "v":
		return op.Value.Any()
	case "tx":
		return op.Tx
	case "k":
		return op.K
	}
	if f, ok := fields[name]; ok {
		vals := op.Values[f.Index].Values
		if !f.Many {
			if len(vals) == 0 {
				return nil
			}
			return vals[0].Any()
		}
		out := make([]any, len(vals))
		for j, v := range vals {
			out[j] = v.Any()
		}
		b, _ := json.Marshal(out)
		return string(b)
	}
	return nil
}
