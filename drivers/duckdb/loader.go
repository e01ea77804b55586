package duckdb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// The loader writes values straight into DuckDB data chunks and appends
// full chunks with a DuckDB appender, one per table. duckdb-go's
// Appender.AppendRow does the same through a generic per-value setter and
// a cgo call per row for the chunk capacity. DuckDB's compression of the
// rows costs several times either (see docs/benchmarks-history.md, drivers/duckdb).
//
// Appends run inside an explicit transaction that Flush commits, so one
// Flush is one transaction across all tables, and rows appended after the
// last Flush are rolled back by Close. A Flush of at least one row group
// (122,880 rows) per table lets DuckDB write the rows to the file once;
// smaller commits go through the WAL and are compressed at checkpoint.

type loadKind int

const (
	lBool loadKind = iota
	lInt8
	lInt16
	lInt32
	lInt64
	lUint8
	lUint16
	lUint32
	lUint64
	lFloat32
	lFloat64
	lVarchar
	lBlob
	lTimestamp // microseconds, also TIMESTAMP WITH TIME ZONE
	lDate
)

var loadKinds = map[mapping.Type]loadKind{
	mapping.TypeBoolean:     lBool,
	mapping.TypeTinyInt:     lInt8,
	mapping.TypeSmallInt:    lInt16,
	mapping.TypeInteger:     lInt32,
	mapping.TypeBigInt:      lInt64,
	mapping.TypeUTinyInt:    lUint8,
	mapping.TypeUSmallInt:   lUint16,
	mapping.TypeUInteger:    lUint32,
	mapping.TypeUBigInt:     lUint64,
	mapping.TypeFloat:       lFloat32,
	mapping.TypeDouble:      lFloat64,
	mapping.TypeVarchar:     lVarchar,
	mapping.TypeBlob:        lBlob,
	mapping.TypeTimestamp:   lTimestamp,
	mapping.TypeTimestampTZ: lTimestamp,
	mapping.TypeDate:        lDate,
}

// intRange is the range of each integer kind.
var intRange = map[loadKind][2]int64{
	lInt8:   {math.MinInt8, math.MaxInt8},
	lInt16:  {math.MinInt16, math.MaxInt16},
	lInt32:  {math.MinInt32, math.MaxInt32},
	lInt64:  {math.MinInt64, math.MaxInt64},
	lUint8:  {0, math.MaxUint8},
	lUint16: {0, math.MaxUint16},
	lUint32: {0, math.MaxUint32},
	lUint64: {0, math.MaxInt64},
}

type loadCol struct {
	name   string
	kind   loadKind
	lo, hi int64 // integer kinds
	vec    mapping.Vector
	data   unsafe.Pointer
	valid  unsafe.Pointer // nil until the chunk holds a NULL in this column
}

type loadTable struct {
	name  string
	app   mapping.Appender
	types []mapping.LogicalType
	chunk mapping.DataChunk
	cols  []loadCol
	n     int // rows in chunk
}

type loader struct {
	b *backend
	d *dconn
	// mu serialises the loader's calls with Close, which Backend.Close may
	// call from another goroutine (about 1% of Append's time, measured).
	mu  sync.Mutex
	cap int // rows per chunk
	// err is the first error that left the loader unusable.
	err    error
	tables []*loadTable
}

// NewLoader opens a connection, begins the load transaction and creates
// one appender per table, learning the column types once.
func (b *backend) NewLoader(ctx context.Context, tables []drivers.TableSpec) (drivers.Loader, error) {
	d, err := b.connect(ctx)
	if err != nil {
		return nil, err
	}
	l := &loader{b: b, d: d, cap: int(mapping.VectorSize())}
	if err := d.exec(ctx, "BEGIN TRANSACTION"); err != nil {
		l.release()
		return nil, b.wrap("loader", "BEGIN TRANSACTION", err)
	}
	for _, spec := range tables {
		t, err := l.openTable(spec)
		if err != nil {
			l.release()
			return nil, fmt.Errorf("duckdb backend %q: loader for table %q: %w", b.name, spec.Name, err)
		}
		l.tables = append(l.tables, t)
	}
	if err := b.open.Track(l, b.what(), l.release); err != nil {
		return nil, err
	}
	return l, nil
}

// openTable creates the appender for spec; Columns narrows and orders the
// appended columns (the others get their defaults).
func (l *loader) openTable(spec drivers.TableSpec) (*loadTable, error) {
	schema, table := "", spec.Name
	if i := strings.LastIndexByte(spec.Name, '.'); i >= 0 {
		schema, table = spec.Name[:i], spec.Name[i+1:]
	}
	t := &loadTable{name: spec.Name}
	if mapping.AppenderCreateExt(l.d.c, "", schema, table, &t.app) == mapping.StateError {
		err := &dbError{msg: mapping.AppenderError(t.app)}
		mapping.AppenderDestroy(&t.app)
		return nil, err
	}
	for _, c := range spec.Columns {
		if mapping.AppenderAddColumn(t.app, c) == mapping.StateError {
			err := &dbError{msg: mapping.AppenderError(t.app)}
			mapping.AppenderDestroy(&t.app)
			return nil, fmt.Errorf("column %q: %w", c, err)
		}
	}
	n := int(mapping.AppenderColumnCount(t.app))
	for i := 0; i < n; i++ {
		lt := mapping.AppenderColumnType(t.app, mapping.IdxT(i))
		t.types = append(t.types, lt)
		name := fmt.Sprintf("#%d", i+1)
		if i < len(spec.Columns) {
			name = spec.Columns[i]
		}
		id := mapping.GetTypeId(lt)
		k, ok := loadKinds[id]
		if !ok {
			t.destroy()
			return nil, fmt.Errorf("column %s: type id %d cannot be loaded", name, id)
		}
		c := loadCol{name: name, kind: k}
		if r, ok := intRange[k]; ok {
			c.lo, c.hi = r[0], r[1]
		}
		t.cols = append(t.cols, c)
	}
	t.chunk = mapping.CreateDataChunk(t.types)
	t.bindVectors()
	return t, nil
}

// bindVectors (re)reads the vector pointers; a chunk reset may move them.
func (t *loadTable) bindVectors() {
	for i := range t.cols {
		c := &t.cols[i]
		c.vec = mapping.DataChunkGetVector(t.chunk, mapping.IdxT(i))
		c.data = mapping.VectorGetData(c.vec)
		c.valid = nil
	}
}

func (t *loadTable) destroy() {
	if t.chunk.Ptr != nil {
		mapping.DestroyDataChunk(&t.chunk)
	}
	for i := range t.types {
		mapping.DestroyLogicalType(&t.types[i])
	}
	t.types = nil
	if t.app.Ptr != nil {
		// Clear first: destroying an appender flushes what it holds.
		mapping.AppenderClear(t.app)
		mapping.AppenderDestroy(&t.app)
	}
}

// Append writes one row into the table's chunk; a full chunk goes to the
// appender. A failed row leaves the chunk as it was before the row.
func (l *loader) Append(table int, row []any) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if table < 0 || table >= len(l.tables) {
		return fmt.Errorf("duckdb backend %q: loader: table index %d out of range (%d tables)", l.b.name, table, len(l.tables))
	}
	t := l.tables[table]
	if len(row) != len(t.cols) {
		return fmt.Errorf("duckdb backend %q: loader: table %q: row has %d values, want %d", l.b.name, t.name, len(row), len(t.cols))
	}
	r := t.n
	for i, v := range row {
		if err := t.cols[i].put(r, v); err != nil {
			return fmt.Errorf("duckdb backend %q: loader: table %q column %s: %w", l.b.name, t.name, t.cols[i].name, err)
		}
	}
	t.n++
	if t.n == l.cap {
		if err := t.appendChunk(); err != nil {
			l.err = fmt.Errorf("duckdb backend %q: loader: table %q: %w", l.b.name, t.name, err)
			return l.err
		}
	}
	return nil
}

// appendChunk hands the filled rows to the appender and resets the chunk.
func (t *loadTable) appendChunk() error {
	if t.n == 0 {
		return nil
	}
	mapping.DataChunkSetSize(t.chunk, mapping.IdxT(t.n))
	state := mapping.AppendDataChunk(t.app, t.chunk)
	mapping.DataChunkReset(t.chunk)
	t.n = 0
	t.bindVectors()
	if state == mapping.StateError {
		return &dbError{msg: mapping.AppenderError(t.app)}
	}
	return nil
}

func (c *loadCol) put(r int, v any) error {
	if v == nil {
		if c.valid == nil {
			mapping.VectorEnsureValidityWritable(c.vec)
			c.valid = mapping.VectorGetValidity(c.vec)
		}
		w := (*uint64)(unsafe.Add(c.valid, (r>>6)*8))
		*w &^= 1 << (uint(r) & 63)
		return nil
	}
	if c.valid != nil {
		// The slot may hold a NULL from a row that failed half way.
		w := (*uint64)(unsafe.Add(c.valid, (r>>6)*8))
		*w |= 1 << (uint(r) & 63)
	}
	switch c.kind {
	case lInt64:
		i, ok := loadInt(v)
		if !ok {
			return typeErr(v, "BIGINT")
		}
		*(*int64)(unsafe.Add(c.data, r*8)) = i
	case lInt32:
		i, ok := loadInt(v)
		if !ok || i < c.lo || i > c.hi {
			return rangeErr(v, ok, "INTEGER")
		}
		*(*int32)(unsafe.Add(c.data, r*4)) = int32(i)
	case lVarchar:
		s, ok := v.(string)
		if !ok {
			b, isBytes := v.([]byte)
			if !isBytes {
				return typeErr(v, "VARCHAR")
			}
			s = string(b)
		}
		if !utf8.ValidString(s) {
			return errors.New("string is not valid UTF-8")
		}
		c.putString(r, s)
	case lBool:
		switch x := v.(type) {
		case bool:
			*(*bool)(unsafe.Add(c.data, r)) = x
		case int64:
			if x != 0 && x != 1 {
				return fmt.Errorf("int64 %d is not a BOOLEAN (0 or 1)", x)
			}
			*(*bool)(unsafe.Add(c.data, r)) = x == 1
		default:
			return typeErr(v, "BOOLEAN")
		}
	case lFloat64:
		f, ok := loadFloat(v)
		if !ok {
			return typeErr(v, "DOUBLE")
		}
		*(*float64)(unsafe.Add(c.data, r*8)) = f
	case lFloat32:
		f, ok := loadFloat(v)
		if !ok {
			return typeErr(v, "FLOAT")
		}
		*(*float32)(unsafe.Add(c.data, r*4)) = float32(f)
	case lInt8, lInt16, lUint8, lUint16, lUint32, lUint64:
		i, ok := loadInt(v)
		if !ok || i < c.lo || i > c.hi {
			return rangeErr(v, ok, "integer column")
		}
		switch c.kind {
		case lInt8:
			*(*int8)(unsafe.Add(c.data, r)) = int8(i)
		case lInt16:
			*(*int16)(unsafe.Add(c.data, r*2)) = int16(i)
		case lUint8:
			*(*uint8)(unsafe.Add(c.data, r)) = uint8(i)
		case lUint16:
			*(*uint16)(unsafe.Add(c.data, r*2)) = uint16(i)
		case lUint32:
			*(*uint32)(unsafe.Add(c.data, r*4)) = uint32(i)
		default:
			*(*uint64)(unsafe.Add(c.data, r*8)) = uint64(i)
		}
	case lBlob:
		switch x := v.(type) {
		case []byte:
			c.putString(r, string(x))
		case string:
			c.putString(r, x)
		default:
			return typeErr(v, "BLOB")
		}
	case lTimestamp:
		t, ok := v.(time.Time)
		if !ok {
			return typeErr(v, "TIMESTAMP")
		}
		*(*int64)(unsafe.Add(c.data, r*8)) = t.UnixMicro()
	case lDate:
		t, ok := v.(time.Time)
		if !ok {
			return typeErr(v, "DATE")
		}
		days := t.Unix() / 86400
		if t.Unix() < 0 && t.Unix()%86400 != 0 {
			days-- // floor, not truncation, before 1970
		}
		*(*int32)(unsafe.Add(c.data, r*4)) = int32(days)
	}
	return nil
}

// putString stores s in the vector. Strings of up to 12 bytes live inside
// the 16-byte duckdb_string_t and are written here without a cgo call;
// longer ones are copied into the vector's string heap by DuckDB.
func (c *loadCol) putString(r int, s string) {
	if len(s) <= 12 {
		p := (*[16]byte)(unsafe.Add(c.data, r*16))
		*p = [16]byte{}
		*(*uint32)(unsafe.Pointer(p)) = uint32(len(s))
		copy(p[4:], s)
		return
	}
	mapping.VectorAssignStringElement(c.vec, mapping.IdxT(r), s)
}

func loadInt(v any) (int64, bool) {
	if i, ok := asInt64(v); ok {
		return i, true
	}
	if u, ok := v.(uint64); ok && u <= math.MaxInt64 {
		return int64(u), true
	}
	return 0, false
}

func loadFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	}
	if i, ok := asInt64(v); ok {
		return float64(i), true
	}
	return 0, false
}

func typeErr(v any, col string) error {
	return fmt.Errorf("cannot store %T in a %s column", v, col)
}

func rangeErr(v any, isInt bool, col string) error {
	if !isInt {
		return typeErr(v, col)
	}
	return fmt.Errorf("value %v out of range for %s", v, col)
}

// Flush appends the partial chunks, flushes every appender and commits,
// then begins the next transaction.
func (l *loader) Flush(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("duckdb backend %q: loader flush: %w", l.b.name, err)
	}
	stop := l.d.watch(ctx)
	err := l.flushTables(ctx)
	stop()
	if err == nil {
		err = l.d.exec(ctx, "COMMIT")
		if err == nil {
			err = l.d.exec(ctx, "BEGIN TRANSACTION")
		}
	}
	if err != nil {
		l.err = fmt.Errorf("duckdb backend %q: loader flush: %w", l.b.name, err)
		return l.err
	}
	return nil
}

func (l *loader) flushTables(ctx context.Context) error {
	for _, t := range l.tables {
		if err := t.appendChunk(); err != nil {
			return fmt.Errorf("table %q: %w", t.name, err)
		}
		if mapping.AppenderFlush(t.app) == mapping.StateError {
			err := error(&dbError{msg: mapping.AppenderError(t.app)})
			if cerr := ctx.Err(); cerr != nil {
				err = errors.Join(cerr, err)
			}
			return fmt.Errorf("table %q: %w", t.name, err)
		}
	}
	return nil
}

func (l *loader) interrupt() { l.d.interrupt() }

// Close discards rows not flushed and releases the connection.
func (l *loader) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.d.closed() {
		return nil
	}
	l.release()
	l.b.open.Remove(l)
	return nil
}

func (l *loader) release() {
	for _, t := range l.tables {
		t.destroy()
	}
	l.tables = nil
	// A rollback error only means no transaction was open.
	_ = l.d.exec(context.Background(), "ROLLBACK")
	l.d.disconnect()
	if l.err == nil {
		l.err = fmt.Errorf("duckdb backend %q: loader: %w", l.b.name, errClosed)
	}
}
