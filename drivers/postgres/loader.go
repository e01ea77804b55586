package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// A Loader encodes each appended row at once into the binary COPY format,
// in per-table chunks. Full chunks go to a sender goroutine that streams
// them with COPY ... FROM STDIN (BINARY) inside one transaction per Flush,
// so encoding here overlaps with the server's work, as pgx CopyFrom does,
// while memory stays bounded whatever the Flush interval.

const (
	chunkSize  = 256 << 10 // bytes handed to the sender at a time
	workQueue  = 4         // chunks queued for the sender
	freeChunks = 8         // chunks kept for reuse
)

var (
	copyHeader  = []byte("PGCOPY\n\377\r\n\000\000\000\000\000\000\000\000\000")
	copyTrailer = []byte{0xff, 0xff}

	errLoaderClosed = errors.New("loader closed")
)

type loadTable struct {
	name    string // as given, for errors
	columns []string
	copySQL string
	oids    []uint32
	buf     []byte // rows encoded since the last hand-off
}

// msg is a chunk of rows of one table, or a flush request.
type msg struct {
	table int
	data  []byte
	flush bool
}

// Loader is one bulk load job on its own connection.
type Loader struct {
	b      *Backend
	conn   *pgx.Conn
	types  *pgtype.Map
	tables []loadTable

	work    chan msg
	free    chan []byte
	results chan error // one per flush request
	done    chan struct{}
	ctx     context.Context // the sender's; cancelled to abort it
	cancel  context.CancelFunc
	failed  atomic.Pointer[error] // the sender's first error since the last flush

	pending bool  // rows handed to the sender since the last flush
	err     error // makes the loader unusable
}

var _ drivers.Loader = (*Loader)(nil)

// NewLoader opens a connection and looks up the column types of tables.
func (b *Backend) NewLoader(ctx context.Context, tables []drivers.TableSpec) (drivers.Loader, error) {
	if len(tables) == 0 {
		return nil, errors.New(b.name + ": loader: no tables")
	}
	conn, err := b.connect(ctx)
	if err != nil {
		return nil, b.redact(fmt.Errorf("%s: loader: connect to database %q: %w", b.name, b.database, withCtx(ctx, err)))
	}
	l := &Loader{
		b:       b,
		conn:    conn,
		types:   conn.TypeMap(),
		work:    make(chan msg, workQueue),
		free:    make(chan []byte, freeChunks),
		results: make(chan error, 1),
		done:    make(chan struct{}),
	}
	for _, t := range tables {
		lt, err := describeTable(ctx, conn, t)
		if err != nil {
			closeQuietly(conn)
			return nil, b.redact(fmt.Errorf("%s: loader: %w", b.name, withCtx(ctx, err)))
		}
		l.tables = append(l.tables, lt)
	}
	// The sender outlives NewLoader's context: it lives until Close.
	l.ctx, l.cancel = context.WithCancel(context.Background())
	go l.run()
	return l, nil
}

func describeTable(ctx context.Context, conn *pgx.Conn, t drivers.TableSpec) (loadTable, error) {
	if len(t.Columns) == 0 {
		return loadTable{}, fmt.Errorf("table %q: no columns", t.Name)
	}
	table := pgx.Identifier(strings.Split(t.Name, ".")).Sanitize()
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = pgx.Identifier{c}.Sanitize()
	}
	list := strings.Join(cols, ", ")
	sd, err := conn.PgConn().Prepare(ctx, "", "SELECT "+list+" FROM "+table, nil)
	if err != nil {
		return loadTable{}, fmt.Errorf("table %q: column types: %w", t.Name, err)
	}
	oids := make([]uint32, len(sd.Fields))
	for i, f := range sd.Fields {
		oids[i] = f.DataTypeOID
	}
	return loadTable{
		name:    t.Name,
		columns: t.Columns,
		copySQL: "COPY " + table + " (" + list + ") FROM STDIN (FORMAT binary)",
		oids:    oids,
	}, nil
}

// Append encodes row into the table's chunk; the row is not kept.
func (l *Loader) Append(table int, row []any) error {
	if l.err != nil {
		return l.err
	}
	if table < 0 || table >= len(l.tables) {
		return fmt.Errorf("%s: loader: table index %d out of range (%d tables)", l.b.name, table, len(l.tables))
	}
	t := &l.tables[table]
	if len(row) != len(t.oids) {
		return fmt.Errorf("%s: loader: table %q: %d values for %d columns", l.b.name, t.name, len(row), len(t.oids))
	}
	buf := t.buf
	if buf == nil {
		buf = l.chunk()
	}
	start := len(buf)
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(row)))
	for i, v := range row {
		var err error
		if buf, err = appendValue(buf, l.types, t.oids[i], v); err != nil {
			t.buf = buf[:start]
			return fmt.Errorf("%s: loader: table %q column %q: %w", l.b.name, t.name, t.columns[i], err)
		}
	}
	t.buf = buf
	if len(buf) >= chunkSize {
		return l.handOff(table)
	}
	return nil
}

// handOff queues the table's chunk for the sender.
func (l *Loader) handOff(table int) error {
	t := &l.tables[table]
	l.work <- msg{table: table, data: t.buf}
	t.buf = nil
	l.pending = true
	if p := l.failed.Load(); p != nil {
		return fmt.Errorf("%s: loader: %w (the rows since the last Flush are lost)", l.b.name, *p)
	}
	return nil
}

// Flush sends the remaining rows and commits everything since the last
// Flush as one transaction.
func (l *Loader) Flush(ctx context.Context) error {
	if l.err != nil {
		return l.err
	}
	for i := range l.tables {
		if len(l.tables[i].buf) > 0 {
			// The sender's error, if any, is reported by the flush below.
			_ = l.handOff(i)
		}
	}
	if !l.pending {
		return nil
	}
	l.pending = false
	l.work <- msg{flush: true}
	var err error
	select {
	case err = <-l.results:
	case <-ctx.Done():
		// Abort the sender's COPY or COMMIT; the loader is done for.
		l.cancel()
		err = <-l.results
		l.err = errors.New(l.b.name + ": loader: aborted by a cancelled Flush")
	}
	if err != nil {
		return l.b.redact(fmt.Errorf("%s: loader: flush: %w", l.b.name, withCtx(ctx, err)))
	}
	return nil
}

// Close stops the sender, discarding rows not flushed, and closes the
// connection.
func (l *Loader) Close() error {
	if errors.Is(l.err, errLoaderClosed) {
		return nil
	}
	l.err = fmt.Errorf("%s: loader: %w", l.b.name, errLoaderClosed)
	close(l.work)
	select {
	case <-l.done:
	case <-time.After(10 * time.Second):
		l.cancel() // the server does not answer: cancel the COPY
		<-l.done
	}
	l.cancel()
	closeQuietly(l.conn)
	return nil
}

func (l *Loader) chunk() []byte {
	select {
	case b := <-l.free:
		return b[:0]
	default:
		return make([]byte, 0, chunkSize+chunkSize/4)
	}
}

func (l *Loader) recycle(b []byte) {
	if cap(b) > 2*chunkSize {
		return // one huge row: let it go
	}
	select {
	case l.free <- b:
	default:
	}
}

// run is the sender: it streams chunks to COPY statements, switching
// statement when the table changes, and commits on flush requests.
func (l *Loader) run() {
	defer close(l.done)
	pg := l.conn.PgConn()
	exec := func(sql string) error {
		_, err := pg.Exec(l.ctx, sql).ReadAll()
		return err
	}
	var next *msg
	inTx := false
	var failed error
	for {
		var m msg
		if next != nil {
			m, next = *next, nil
		} else {
			var ok bool
			if m, ok = <-l.work; !ok {
				return
			}
		}
		if m.flush {
			err := failed
			switch {
			case err == nil && inTx:
				err = exec("COMMIT")
			case inTx && !pg.IsClosed():
				_ = exec("ROLLBACK") // the error that failed the transaction is reported
			}
			inTx, failed = false, nil
			l.failed.Store(nil)
			l.results <- err
			continue
		}
		if failed != nil {
			l.recycle(m.data) // discarded until the flush reports the error
			continue
		}
		if !inTx {
			if err := exec("BEGIN"); err != nil {
				failed = fmt.Errorf("begin: %w", err)
				l.failed.Store(errPtr(failed))
				l.recycle(m.data)
				continue
			}
			inTx = true
		}
		r := &copyReader{l: l, table: m.table, cur: copyHeader, queued: m.data}
		_, err := pg.CopyFrom(l.ctx, r, l.tables[m.table].copySQL)
		next = r.next
		if r.closed {
			return
		}
		if err != nil {
			failed = fmt.Errorf("copy into %q: %w", l.tables[m.table].name, err)
			l.failed.Store(errPtr(failed))
		}
	}
}

// copyReader feeds one COPY statement: the header, the chunks of its table
// as they arrive, and the trailer once a chunk of another table or a flush
// request arrives (kept in next for the sender).
type copyReader struct {
	l      *Loader
	table  int
	cur    []byte // being read
	chunk  []byte // the chunk cur belongs to, recycled once read
	queued []byte // the next chunk
	ended  bool   // cur is the trailer
	next   *msg
	closed bool // the work channel was closed
}

func (r *copyReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.cur) == 0 {
			if r.chunk != nil {
				r.l.recycle(r.chunk)
				r.chunk = nil
			}
			switch {
			case r.ended:
				if n > 0 {
					return n, nil
				}
				return 0, io.EOF
			case r.queued != nil:
				r.cur, r.chunk, r.queued = r.queued, r.queued, nil
				continue
			case n > 0:
				return n, nil // send what we have before waiting
			}
			m, ok := <-r.l.work
			if !ok {
				r.closed = true
				return 0, errLoaderClosed
			}
			if m.flush || m.table != r.table {
				r.next = &m
				r.cur, r.ended = copyTrailer, true
				continue
			}
			r.cur, r.chunk = m.data, m.data
		}
		c := copy(p[n:], r.cur)
		r.cur = r.cur[c:]
		n += c
	}
	return n, nil
}

// appendValue appends v as one binary COPY field of type oid: the common
// (type, value) pairs by hand, the rest through pgx's type map.
func appendValue(buf []byte, m *pgtype.Map, oid uint32, v any) ([]byte, error) {
	be := binary.BigEndian
	switch x := v.(type) {
	case nil:
		return be.AppendUint32(buf, math.MaxUint32), nil // -1: NULL
	case int64:
		switch oid {
		case pgtype.Int8OID:
			return be.AppendUint64(be.AppendUint32(buf, 8), uint64(x)), nil
		case pgtype.Int4OID:
			if x < math.MinInt32 || x > math.MaxInt32 {
				return buf, fmt.Errorf("%d is out of range for integer", x)
			}
			return be.AppendUint32(be.AppendUint32(buf, 4), uint32(int32(x))), nil
		case pgtype.Int2OID:
			if x < math.MinInt16 || x > math.MaxInt16 {
				return buf, fmt.Errorf("%d is out of range for smallint", x)
			}
			return be.AppendUint16(be.AppendUint32(buf, 2), uint16(int16(x))), nil
		case pgtype.Float8OID:
			return be.AppendUint64(be.AppendUint32(buf, 8), math.Float64bits(float64(x))), nil
		}
	case string:
		switch oid {
		case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID:
			if len(x) > math.MaxInt32 {
				return buf, errors.New("string too long")
			}
			return append(be.AppendUint32(buf, uint32(len(x))), x...), nil
		}
	case bool:
		if oid == pgtype.BoolOID {
			b := byte(0)
			if x {
				b = 1
			}
			return append(be.AppendUint32(buf, 1), b), nil
		}
	case float64:
		switch oid {
		case pgtype.Float8OID:
			return be.AppendUint64(be.AppendUint32(buf, 8), math.Float64bits(x)), nil
		case pgtype.Float4OID:
			return be.AppendUint32(be.AppendUint32(buf, 4), math.Float32bits(float32(x))), nil
		}
	}
	sp := len(buf)
	buf = be.AppendUint32(buf, 0)
	out, err := m.Encode(oid, pgtype.BinaryFormatCode, v, buf)
	if err != nil {
		s, ok := v.(string)
		if !ok {
			return buf[:sp], err
		}
		// A string for another type (numeric, timestamp, ...): parse it
		// as that type's text form, then encode it in binary.
		if out, err = encodeFromText(m, oid, s, buf); err != nil {
			return buf[:sp], err
		}
	}
	if out == nil {
		return be.AppendUint32(buf[:sp], math.MaxUint32), nil
	}
	be.PutUint32(out[sp:], uint32(len(out)-sp-4))
	return out, nil
}

func encodeFromText(m *pgtype.Map, oid uint32, s string, buf []byte) ([]byte, error) {
	t, ok := m.TypeForOID(oid)
	if !ok {
		return nil, fmt.Errorf("no binary encoding for type OID %d", oid)
	}
	v, err := t.Codec.DecodeValue(m, oid, pgtype.TextFormatCode, []byte(s))
	if err != nil {
		return nil, err
	}
	return m.Encode(oid, pgtype.BinaryFormatCode, v, buf)
}

// errPtr stores a copy: the sender resets its own variable after a flush.
func errPtr(err error) *error { return &err }
