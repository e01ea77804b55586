package opwrite

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/ops"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
	"github.com/mentat-spec/mentat-spec/engine/writetx"
)

// nullSession is a session whose statements return at once: what is left
// of a transaction is the engine's own work.
type nullSession struct{}

func (nullSession) Exec(context.Context, string) error { return nil }
func (nullSession) Prepare(context.Context, string) (drivers.Stmt, error) {
	return nullStmt{}, nil
}
func (nullSession) Close() error { return nil }

type nullStmt struct{}

func (nullStmt) Query(_ context.Context, args []any, _ *[][]any) (int64, error) {
	for _, a := range args {
		if _, ok := a.(int64); !ok {
			return 0, fmt.Errorf("argument %v is not a whole number", a)
		}
	}
	return 0, nil
}
func (nullStmt) Close() error { return nil }

// BenchmarkTxOverhead is the engine's work per transaction of pgbench's
// tpcb-like (examples/tpcb on pgbench's tables, as scripts/bench-native.sh
// runs it), without a database: a client's runTx drawing the
// transaction, computing its delta, binding BEGIN, the five statements
// and COMMIT, and numbering and recording the commit, over statements
// that return at once. ns/op and allocs/op are the client CPU the engine
// adds to what pgbench spends per transaction.
//
//	go test -run '^$' -bench TxOverhead -benchmem ./engine/opwrite/
func BenchmarkTxOverhead(b *testing.B) {
	ctx := context.Background()
	spec, diags := config.Load([]string{"../../examples/tpcb", "../../examples/tpcb/pgbench"}, config.Options{
		Vars: []config.VarArg{{Name: "pg_dsn", Value: "postgres://127.0.0.1:1/x"}}})
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	p, diags := planbuild.Build(ctx, spec, plan.Drivers(drivers.Default), 2)
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	sp := p.Scales[0]
	q := sp.Cells[0].Queries["tpcb"]
	statements := func(string) ([]kind.Statement, error) {
		var out []kind.Statement
		for _, text := range sqltext.Statements(q.SQL) {
			bd, err := sqltext.Bind(text, func(i int) string { return "$" + strconv.Itoa(i) })
			if err != nil {
				return nil, err
			}
			out = append(out, kind.Statement{SQL: bd.SQL, Names: bd.Names})
		}
		return out, nil
	}
	o := kind.Operation{Name: "tpcb", Write: "tpcb", Query: "tpcb", MaxTries: 1}
	tx, err := writetx.Prepare(ctx, nullSession{}, o, statements, writetx.ParamsOf(sp.Writes, "tpcb", sp.Gen))
	if err != nil {
		b.Fatal(err)
	}
	w := &Writer{Op: o, Writes: sp.Writes, Seq: &ops.Seq{}, Gen: sp.Gen, Tally: &Tally{},
		Classify: func(error) drivers.ErrorClass { return drivers.ErrorOther }}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.runTx(ctx, tx); err != nil {
			b.Fatal(err)
		}
	}
}
