package store

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
)

// Exec runs every statement of texts, each split into its statements.
func Exec(ctx context.Context, s drivers.Session, texts []string) error {
	return ExecTimed(ctx, s, texts, nil)
}

// Step is one statement of the after-load SQL and how long it took.
type Step struct {
	What string // after_load, analyze, vacuum
	SQL  string
	Took time.Duration
}

// CountStatements is how many statements texts hold.
func CountStatements(texts []string) int {
	n := 0
	for _, t := range texts {
		n += len(sqltext.Statements(t))
	}
	return n
}

// ExecTimed runs texts' statements in order as Exec does, and hands each
// statement that completed and its time to done (nil: none): at scale l
// one index build can take most of the after-load time.
func ExecTimed(ctx context.Context, s drivers.Session, texts []string, done func(stmt string, took time.Duration)) error {
	for _, t := range texts {
		for _, stmt := range sqltext.Statements(t) {
			t0 := time.Now()
			if err := s.Exec(ctx, stmt); err != nil {
				return err
			}
			if done != nil {
				done(stmt, time.Since(t0))
			}
		}
	}
	return nil
}

// AttrColumns and DatomColumns are the columns a driver's loader gets,
// in this order, for the attribute table and each datom table.
var AttrColumns = []string{"a", "ident", "entity", "value_type", "cardinality", "is_unique", "is_index"}
var DatomColumns = []string{"e", "a", "v", "tx", "added"}

// Result is what a bulk load measured.
type Result struct {
	Datoms  int64
	Elapsed time.Duration
	Capped  bool // the load cap was hit
	Jobs    []jobLog
	Tables  []drivers.TableSpec
	// Statement is set for a load through a statement (StatementLoad):
	// each commit is then one batch, after the schema's one call.
	Statement   string
	SchemaAttrs int
	SchemaTook  time.Duration
}

// BulkLoad streams the dataset into the backend with lc.Jobs parallel
// loaders on disjoint transaction ranges, committing at transaction
// boundaries every lc.BatchRows rows, and adds the datoms loaded to datoms
// (nil: none) as they commit, for the live progress. capDur > 0 cuts the
// load after that long: the result says capped, not an error.
func BulkLoad(ctx context.Context, bl drivers.BulkLoader, gen *datagen.Dataset, lc resolve.Load, capDur time.Duration, datoms *atomic.Int64) (Result, error) {
	tables := loadTables(lc)
	if datoms == nil {
		datoms = new(atomic.Int64)
	}
	start := time.Now()
	lctx := ctx
	var cancel context.CancelFunc = func() {}
	if capDur > 0 {
		lctx, cancel = context.WithTimeout(ctx, capDur)
	}
	defer cancel()

	jobs := lc.Jobs
	total := gen.TxCount()
	if int64(jobs) > total && total > 0 {
		jobs = int(total)
	}
	if jobs < 1 {
		jobs = 1
	}
	logs := make([]jobLog, jobs)
	var wg sync.WaitGroup
	for j := 0; j < jobs; j++ {
		from, to := total*int64(j)/int64(jobs), total*int64(j+1)/int64(jobs)
		logs[j] = jobLog{from: from, to: to, rows: make([]int64, len(tables))}
		wg.Add(1)
		go func(j int) {
			defer wg.Done()
			logs[j].err = loadRange(lctx, bl, tables, gen, from, to, j == 0, lc.BatchRows, datoms, &logs[j])
		}(j)
	}
	wg.Wait()
	res := Result{Datoms: datoms.Load(), Elapsed: time.Since(start), Jobs: logs, Tables: tables}
	for _, jl := range logs {
		err := jl.err
		if err == nil {
			continue
		}
		if lctx.Err() != nil && ctx.Err() == nil {
			res.Capped = true
			return res, nil
		}
		return res, err
	}
	return res, nil
}

// loadTables are the tables lc names: attributes, then one per class.
func loadTables(lc resolve.Load) []drivers.TableSpec {
	tables := []drivers.TableSpec{{Name: lc.Tables["attrs"], Columns: AttrColumns}}
	for _, class := range datagen.ClassNames {
		tables = append(tables, drivers.TableSpec{Name: lc.Tables[class], Columns: DatomColumns})
	}
	return tables
}

func loadRange(ctx context.Context, bl drivers.BulkLoader, tables []drivers.TableSpec, gen *datagen.Dataset,
	from, to int64, withAttrs bool, batchRows int, datoms *atomic.Int64, jl *jobLog) error {
	l, err := bl.NewLoader(ctx, tables)
	if err != nil {
		return fmt.Errorf("opening a loader: %w", err)
	}
	defer l.Close()
	row := make([]any, 7)
	if withAttrs {
		for _, a := range gen.Attrs() {
			card := "one"
			if a.Many {
				card = "many"
			}
			row = append(row[:0], int64(a.ID), a.Ident, a.Entity, string(a.Type), card, a.Unique, a.Index)
			if err := l.Append(0, row); err != nil {
				return fmt.Errorf("loading attribute %s: %w", a.Ident, err)
			}
			jl.rows[0]++
		}
	}
	pending := 0
	var done int64 // datoms committed by this job
	// e and tx repeat over consecutive datoms (an entity's attributes, a
	// transaction's datoms): each is boxed into an interface once per run,
	// not once per datom. Boxing every int64 was a fifth of the load's CPU.
	var eBox, txBox any
	var lastE, lastTx int64
	err = gen.Stream(ctx, from, to, func(tx *datagen.Tx) error {
		for i := range tx.Datoms {
			d := &tx.Datoms[i]
			if eBox == nil || d.E != lastE {
				eBox, lastE = d.E, d.E
			}
			if txBox == nil || d.Tx != lastTx {
				txBox, lastTx = d.Tx, d.Tx
			}
			row = row[:5]
			row[0], row[1], row[3], row[4] = eBox, int64(d.A), txBox, d.Added
			class := d.V.Class()
			switch class {
			case datagen.ClassText:
				row[2] = d.V.Str
			case datagen.ClassInt:
				row[2] = d.V.Int
			default:
				row[2] = d.V.Float
			}
			if err := l.Append(1+int(class), row); err != nil {
				return fmt.Errorf("loading tx %d: %w", d.Tx, err)
			}
			jl.rows[1+int(class)]++
		}
		pending += len(tx.Datoms)
		if pending >= batchRows {
			t0 := time.Now()
			if err := l.Flush(ctx); err != nil {
				return fmt.Errorf("committing at tx %d: %w", tx.ID, err)
			}
			done += int64(pending)
			jl.commit(t0, tx.ID, done)
			datoms.Add(int64(pending))
			pending = 0
		}
		return nil
	})
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := l.Flush(ctx); err != nil {
		return fmt.Errorf("committing the last batch: %w", err)
	}
	jl.commit(t0, -1, done+int64(pending))
	datoms.Add(int64(pending))
	return nil
}
