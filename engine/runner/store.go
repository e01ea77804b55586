package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
)

// metaTable records, inside each store, that this tool created it and what
// it holds. The engine drops or reloads a store only when it finds this
// table (or when the driver just created the store).
const metaTable = "mentat_spec_meta"

const createdBy = "mentat-spec"

// storeState is what the meta table says.
type storeState struct {
	ours        bool
	fingerprint string
	loaded      bool
	written     string // the scenario that wrote to the store after its load; "" when clean
}

// readMeta reads the meta table; a store without it is not ours.
func readMeta(ctx context.Context, s drivers.Session) storeState {
	st, err := s.Prepare(ctx, "SELECT k, v FROM "+metaTable)
	if err != nil {
		return storeState{}
	}
	defer st.Close()
	var rows [][]any
	if _, err := st.Query(ctx, nil, &rows); err != nil {
		return storeState{}
	}
	var out storeState
	for _, row := range rows {
		k, _ := row[0].(string)
		v := fmt.Sprint(row[1])
		switch k {
		case "created_by":
			out.ours = v == createdBy
		case "fingerprint":
			out.fingerprint = v
		case "loaded":
			out.loaded = v == "1"
		case "written":
			out.written = v
		}
	}
	return out
}

func writeMeta(ctx context.Context, s drivers.Session, kv map[string]string) error {
	if err := s.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+metaTable+" (k VARCHAR(64) PRIMARY KEY, v TEXT)"); err != nil {
		return fmt.Errorf("creating %s: %w", metaTable, err)
	}
	for _, k := range []string{"created_by", "fingerprint", "loaded", "loaded_at", "written"} {
		v, ok := kv[k]
		if !ok {
			continue
		}
		if err := s.Exec(ctx, "DELETE FROM "+metaTable+" WHERE k = "+quote(k)); err != nil {
			return fmt.Errorf("updating %s: %w", metaTable, err)
		}
		if err := s.Exec(ctx, "INSERT INTO "+metaTable+" (k, v) VALUES ("+quote(k)+", "+quote(v)+")"); err != nil {
			return fmt.Errorf("updating %s: %w", metaTable, err)
		}
	}
	return nil
}

// metaInit are the statements a driver runs on a store it creates before
// the store is visible: the meta table saying it is ours and not loaded.
func metaInit() []string {
	return []string{
		"CREATE TABLE " + metaTable + " (k VARCHAR(64) PRIMARY KEY, v TEXT)",
		"INSERT INTO " + metaTable + " (k, v) VALUES ('created_by', " + quote(createdBy) + ")",
		"INSERT INTO " + metaTable + " (k, v) VALUES ('loaded', '0')",
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// fingerprint identifies a dataset's content for one backend's layout, so
// a store loaded by an earlier run is reused only for the same data.
func fingerprint(gen *datagen.Dataset, bc plan.Backend) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	_ = enc.Encode(gen.Name)
	_ = enc.Encode(gen.Seed)
	_ = enc.Encode(gen.TxSize)
	_ = enc.Encode(gen.Entities)
	_ = enc.Encode(gen.History)
	_ = enc.Encode(bc.Setup)
	_ = enc.Encode(bc.AfterLoad)
	_ = enc.Encode(bc.Load.Tables)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// execStatements runs every statement of texts.
func execStatements(ctx context.Context, s drivers.Session, texts []string) error {
	for _, t := range texts {
		for _, stmt := range sqltext.Statements(t) {
			if err := s.Exec(ctx, stmt); err != nil {
				return err
			}
		}
	}
	return nil
}

var attrColumns = []string{"a", "ident", "entity", "value_type", "cardinality", "is_unique", "is_index"}
var datomColumns = []string{"e", "a", "v", "tx", "added"}

// loadResult is what a bulk load measured.
type loadResult struct {
	datoms  int64
	elapsed time.Duration
	capped  bool // the load cap was hit
	jobs    []jobLog
	tables  []drivers.TableSpec
}

// bulkLoad streams the dataset into the backend with jobs parallel loaders
// on disjoint transaction ranges, committing at transaction boundaries
// every batchRows rows.
func bulkLoad(ctx context.Context, bl drivers.BulkLoader, gen *datagen.Dataset, lc plan.Load, capDur time.Duration) (loadResult, error) {
	return bulkLoadCounting(ctx, bl, gen, lc, capDur, new(atomic.Int64))
}

// bulkLoadCounting is bulkLoad adding the datoms loaded to datoms as they
// commit, for the live progress.
func bulkLoadCounting(ctx context.Context, bl drivers.BulkLoader, gen *datagen.Dataset, lc plan.Load, capDur time.Duration, datoms *atomic.Int64) (loadResult, error) {
	tables := []drivers.TableSpec{{Name: lc.Tables["attrs"], Columns: attrColumns}}
	for _, class := range datagen.ClassNames {
		tables = append(tables, drivers.TableSpec{Name: lc.Tables[class], Columns: datomColumns})
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
	res := loadResult{datoms: datoms.Load(), elapsed: time.Since(start), jobs: logs, tables: tables}
	for _, jl := range logs {
		err := jl.err
		if err == nil {
			continue
		}
		if lctx.Err() != nil && ctx.Err() == nil {
			res.capped = true
			return res, nil
		}
		return res, err
	}
	return res, nil
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
