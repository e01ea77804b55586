// Package export writes a dataset's generated data as files: CSV datoms
// per storage class, optional EDN transactions, the schema, the tx index
// and the truth, for loading into a store or checking by another tool.
package export

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/internal/scan"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
)

// Options tunes Write.
type Options struct {
	Shards  int  // datom files per storage class (<= 0: 1, at most 10000)
	EDN     bool // also write EDN transaction files
	Workers int  // shards generated at once (<= 0: GOMAXPROCS)
}

const maxShards = 10000 // four-digit shard numbers keep name order == shard order

// Write writes the dataset to dir (created if missing):
//
//	schema.csv                 a,ident,entity,value_type,cardinality,unique,index (with header)
//	tx.csv                     index,tx,phase,file,datoms (with header)
//	datoms-<class>-<NNNN>.csv  e,a,v,tx,added (no header), one file per storage class per shard
//	tx-<NNNN>.edn              with EDN: one transaction vector per line, per shard
//	truth.json                 truth.Compute, indented
//
// Shards split the transaction range evenly, so for each class the
// concatenation of its files in name order is the same bytes whatever the
// shard count, and each shard file loads alone. Values: instants as epoch
// ms, booleans as 1/0, doubles in strconv 'g' format; text is quoted
// (RFC 4180) only when needed, and the empty string is always quoted so
// PostgreSQL's COPY does not read it as NULL. Earlier shard files in dir
// beyond the new shard count are removed so that globs stay consistent.
func Write(ctx context.Context, ds *datagen.Dataset, dir string, opt Options) error {
	if err := ds.Ready(); err != nil {
		return err
	}
	attrs := ds.Attrs()
	shards := max(opt.Shards, 1)
	if shards > maxShards {
		return fmt.Errorf("datagen: %d shards: at most %d", shards, maxShards)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("datagen: create output dir: %w", err)
	}
	if err := removeStale(dir, shards, opt.EDN); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "schema.csv"), func(w *bufio.Writer) error {
		return writeSchema(w, attrs)
	}); err != nil {
		return err
	}
	txRows, err := writeShards(ctx, attrs, ds, dir, shards, opt)
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "tx.csv"), func(w *bufio.Writer) error {
		if _, err := w.WriteString("index,tx,phase,file,datoms\n"); err != nil {
			return err
		}
		for _, r := range txRows {
			if _, err := w.Write(r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	t, err := truth.Compute(ctx, ds, opt.Workers)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return fmt.Errorf("datagen: encode truth: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "truth.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("datagen: write truth: %w", err)
	}
	return nil
}

// writeFile creates path and writes it through a buffered writer.
func writeFile(path string, fn func(*bufio.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("datagen: %w", err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("datagen: close %s: %w", path, cerr)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<16)
	if err := fn(w); err != nil {
		return fmt.Errorf("datagen: write %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("datagen: write %s: %w", path, err)
	}
	return nil
}

// shardFile parses a generated shard file name: datoms-<class>-<NNNN>.csv
// or tx-<NNNN>.edn.
func shardFile(name string) (shard int, edn, ok bool) {
	var num string
	switch {
	case strings.HasPrefix(name, "tx-") && strings.HasSuffix(name, ".edn"):
		num, edn = strings.TrimSuffix(strings.TrimPrefix(name, "tx-"), ".edn"), true
	case strings.HasPrefix(name, "datoms-") && strings.HasSuffix(name, ".csv"):
		rest := strings.TrimSuffix(strings.TrimPrefix(name, "datoms-"), ".csv")
		cl, n, found := strings.Cut(rest, "-")
		if !found || !isClassName(cl) {
			return 0, false, false
		}
		num = n
	default:
		return 0, false, false
	}
	if len(num) < 4 || strings.TrimLeft(num, "0123456789") != "" {
		return 0, false, false
	}
	n, err := strconv.Atoi(num)
	return n, edn, err == nil
}

func isClassName(s string) bool {
	for _, n := range datagen.ClassNames {
		if s == n {
			return true
		}
	}
	return false
}

// removeStale removes generated shard files a new write would not
// overwrite; leaving them would corrupt the shard concatenation.
func removeStale(dir string, shards int, edn bool) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("datagen: read output dir: %w", err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		n, isEDN, ok := shardFile(e.Name())
		if !ok || (n < shards && (!isEDN || edn)) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("datagen: remove stale shard file: %w", err)
		}
	}
	return nil
}

func writeSchema(w *bufio.Writer, attrs []datagen.AttrInfo) error {
	b := []byte("a,ident,entity,value_type,cardinality,unique,index\n")
	for i := range attrs {
		a := &attrs[i]
		b = strconv.AppendInt(b, int64(a.ID), 10)
		b = append(b, ',')
		b = appendCSVText(b, a.Ident)
		b = append(b, ',')
		b = appendCSVText(b, a.Entity)
		b = append(b, ',')
		b = append(b, a.Type...)
		if a.Many {
			b = append(b, ",many,"...)
		} else {
			b = append(b, ",one,"...)
		}
		b = appendBit(b, a.Unique)
		b = append(b, ',')
		b = appendBit(b, a.Index)
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}

func appendBit(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}

// appendCSVText appends s as one CSV field, quoted only when needed (and
// always when empty, which COPY would otherwise read as NULL, or when it
// is PostgreSQL's end-of-data marker).
func appendCSVText(b []byte, s string) []byte {
	if s != "" && s != `\.` && !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// writeShards generates the shards in parallel and returns each shard's
// tx.csv rows.
func writeShards(parent context.Context, attrs []datagen.AttrInfo, ds *datagen.Dataset, dir string, shards int, opt Options) ([][]byte, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	rows := make([][]byte, shards)
	errs := make([]error, shards)
	sem := make(chan struct{}, scan.Workers(opt.Workers))
	var wg sync.WaitGroup
	for s := 0; s < shards; s++ {
		from := int64(s) * ds.TxCount() / int64(shards)
		to := int64(s+1) * ds.TxCount() / int64(shards)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				errs[s] = ctx.Err()
				return
			}
			rows[s], errs[s] = writeShard(ctx, attrs, ds, dir, s, from, to, opt.EDN)
			if errs[s] != nil {
				cancel() // one failed shard stops the others
			}
		}()
	}
	wg.Wait()
	// Report the root cause, not the cancellations it caused.
	for s, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, fmt.Errorf("datagen: shard %d: %w", s, err)
		}
	}
	if err := parent.Err(); err != nil {
		return nil, fmt.Errorf("datagen: write cancelled: %w", err)
	}
	for s, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("datagen: shard %d: %w", s, err)
		}
	}
	return rows, nil
}

// writeShard writes the files of one shard, tx indexes [from, to).
func writeShard(ctx context.Context, attrs []datagen.AttrInfo, ds *datagen.Dataset, dir string, shard int, from, to int64, edn bool) (rows []byte, err error) {
	var files []*os.File
	defer func() {
		for _, f := range files {
			if cerr := f.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("close %s: %w", f.Name(), cerr)
			}
		}
	}()
	open := func(name string) (*bufio.Writer, error) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		return bufio.NewWriterSize(f, 1<<18), nil
	}
	enc := newEncoder(attrs)
	var outs [len(datagen.ClassNames)]io.Writer
	var bufs []*bufio.Writer
	for cl, name := range datagen.ClassNames {
		w, err := open(fmt.Sprintf("datoms-%s-%04d.csv", name, shard))
		if err != nil {
			return nil, err
		}
		outs[cl] = w
		bufs = append(bufs, w)
	}
	var ednOut io.Writer
	if edn {
		w, err := open(fmt.Sprintf("tx-%04d.edn", shard))
		if err != nil {
			return nil, err
		}
		ednOut = w
		bufs = append(bufs, w)
	}
	err = ds.Stream(ctx, from, to, func(tx *datagen.Tx) error {
		if err := enc.csv(tx, &outs); err != nil {
			return err
		}
		if ednOut != nil {
			if err := enc.edn(tx, ednOut); err != nil {
				return err
			}
		}
		rows = enc.txRow(rows, tx)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, w := range bufs {
		if err := w.Flush(); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// encoder renders transactions as CSV rows and EDN lines with reused
// buffers (strconv appends, no fmt). Entity ids, attribute ids and the tx
// id repeat from row to row, so their text is cached: integer formatting
// is most of the cost of a row.
type encoder struct {
	class  []datagen.Class // by attribute ID - 1
	aText  [][]byte        // "<a>," by attribute ID - 1
	ednA   [][]byte        // ":<ident>" by attribute ID - 1
	lines  [len(datagen.ClassNames)][]byte
	line   []byte
	eText  []byte // "<e>," of lastE
	lastE  int64
	added  []byte // ",<tx>,1\n"
	retrac []byte // ",<tx>,0\n"
	// tempids renders entity ids (and ref values) as string tempids,
	// for tx-data a store resolves itself (TxData).
	tempids bool
}

func newEncoder(attrs []datagen.AttrInfo) *encoder {
	e := &encoder{lastE: -1}
	for i := range attrs {
		e.class = append(e.class, attrs[i].Class)
		e.aText = append(e.aText, append(strconv.AppendInt(nil, int64(attrs[i].ID), 10), ','))
		e.ednA = append(e.ednA, []byte(":"+attrs[i].Ident))
	}
	return e
}

// csv writes tx's datoms as e,a,v,tx,added rows, one batch per class.
func (e *encoder) csv(tx *datagen.Tx, outs *[len(datagen.ClassNames)]io.Writer) error {
	for cl := range e.lines {
		e.lines[cl] = e.lines[cl][:0]
	}
	e.added = append(strconv.AppendInt(append(e.added[:0], ','), tx.ID, 10), ",1\n"...)
	e.retrac = append(strconv.AppendInt(append(e.retrac[:0], ','), tx.ID, 10), ",0\n"...)
	for i := range tx.Datoms {
		d := &tx.Datoms[i]
		if d.E != e.lastE {
			e.eText = append(strconv.AppendInt(e.eText[:0], d.E, 10), ',')
			e.lastE = d.E
		}
		cl := e.class[d.A-1]
		b := append(e.lines[cl], e.eText...)
		b = append(b, e.aText[d.A-1]...)
		switch cl {
		case datagen.ClassText:
			b = appendCSVText(b, d.V.Str)
		case datagen.ClassReal:
			b = strconv.AppendFloat(b, d.V.Float, 'g', -1, 64)
		default:
			b = strconv.AppendInt(b, d.V.Int, 10)
		}
		if d.Added {
			b = append(b, e.added...)
		} else {
			b = append(b, e.retrac...)
		}
		e.lines[cl] = b
	}
	for cl, b := range e.lines {
		if len(b) == 0 {
			continue
		}
		if _, err := outs[cl].Write(b); err != nil {
			return err
		}
	}
	return nil
}

// edn writes tx as one line: [[:db/add e :attr v] [:db/retract ...] ...].
func (e *encoder) edn(tx *datagen.Tx, out io.Writer) error {
	b := append(e.line[:0], '[')
	for i := range tx.Datoms {
		d := &tx.Datoms[i]
		if i > 0 {
			b = append(b, ' ')
		}
		b = e.appendEDNDatom(b, d)
	}
	b = append(b, "]\n"...)
	e.line = b
	_, err := out.Write(b)
	return err
}

// appendEDNDatom appends d as [:db/add e :attr v] (or :db/retract).
func (e *encoder) appendEDNDatom(b []byte, d *datagen.Datom) []byte {
	if d.Added {
		b = append(b, "[:db/add "...)
	} else {
		b = append(b, "[:db/retract "...)
	}
	if e.tempids {
		b = appendTempid(b, d.E)
	} else {
		if d.E != e.lastE {
			e.eText = append(strconv.AppendInt(e.eText[:0], d.E, 10), ',')
			e.lastE = d.E
		}
		b = append(b, e.eText[:len(e.eText)-1]...)
	}
	b = append(b, ' ')
	b = append(b, e.ednA[d.A-1]...)
	b = append(b, ' ')
	if e.tempids && d.V.Type == datagen.TypeRef {
		b = appendTempid(b, d.V.Int)
	} else {
		b = appendEDNValue(b, d.V)
	}
	return append(b, ']')
}

// appendEDNValue renders v as an EDN literal: strings quoted, keywords
// with a leading colon, instants as #inst, doubles always with a point or
// exponent (so they do not read back as longs).
func appendEDNValue(b []byte, v datagen.Value) []byte {
	switch v.Type {
	case datagen.TypeString:
		return appendEDNString(b, v.Str)
	case datagen.TypeKeyword:
		if !strings.HasPrefix(v.Str, ":") {
			b = append(b, ':')
		}
		return append(b, v.Str...)
	case datagen.TypeBoolean:
		return strconv.AppendBool(b, v.Int != 0)
	case datagen.TypeInstant:
		b = append(b, `#inst "`...)
		b = time.UnixMilli(v.Int).UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
		return append(b, '"')
	case datagen.TypeDouble:
		start := len(b)
		b = strconv.AppendFloat(b, v.Float, 'g', -1, 64)
		for _, ch := range b[start:] {
			if ch == '.' || ch == 'e' || ch == 'N' || ch == 'I' {
				return b
			}
		}
		return append(b, ".0"...)
	}
	return strconv.AppendInt(b, v.Int, 10)
}

func appendEDNString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '"', '\\':
			b = append(b, '\\', ch)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, ch)
		}
	}
	return append(b, '"')
}

// txRow appends tx's tx.csv row: index,tx,phase,file,datoms.
func (e *encoder) txRow(b []byte, tx *datagen.Tx) []byte {
	b = strconv.AppendInt(b, tx.Index, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, tx.ID, 10)
	b = append(b, ',')
	b = appendCSVText(b, tx.Phase)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(tx.File), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(len(tx.Datoms)), 10)
	return append(b, '\n')
}
