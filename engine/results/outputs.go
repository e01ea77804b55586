package results

import (
	"fmt"
	"path/filepath"
	"slices"
)

// A kind with files of its own (capacity's capacity.csv) declares here,
// from its own package, how its rows are written and read: the core
// names none of its types. Registration happens at init, as
// database/sql's drivers do; the tables are read-only afterwards.

// Output is the reading of a kind's own files into one value of the
// loaded run (Run.Outputs[Name]).
type Output struct {
	Name  string
	Files []string // the files it reads, slash-separated, relative to the results directory
	// Read reads the files of dir; absent files read as no rows, not an
	// error.
	Read func(dir string) (any, error)
	// Variant is the value's rows of backend, renamed label: the part of
	// one run that compare's variants set against another backend's.
	// Nil: the output has no rows per backend.
	Variant func(v any, backend, label string) any
}

var outputs []Output

// RegisterOutput adds o to what Load reads. A name registered twice, or
// an output without a name or reader, is a programming error: it panics,
// at init.
func RegisterOutput(o Output) {
	if o.Name == "" || o.Read == nil {
		panic(fmt.Sprintf("results: output %+v lacks a name or reader", o))
	}
	if slices.ContainsFunc(outputs, func(x Output) bool { return x.Name == o.Name }) {
		panic("results: output " + o.Name + " registered twice")
	}
	outputs = append(outputs, o)
}

// outputFiles are the files of every registered output.
func outputFiles() []string {
	var out []string
	for _, o := range outputs {
		out = append(out, o.Files...)
	}
	return out
}

// Outputs returns the registered outputs in registration order.
func Outputs() []Output { return slices.Clone(outputs) }

// Output is the loaded value of the registered output name, nil when no
// kind registered it.
func (r *Run) Output(name string) any { return r.Outputs[name] }

// RegisterCSV declares the header of a kind's CSV file (slash-separated
// name relative to the results directory): Open refuses a directory whose
// file has another.
func RegisterCSV(name, header string) { csvHeaders[filepath.FromSlash(name)] = header }

// KindRow, embedded in a kind's row type, makes it a Record; the row
// writes itself (RowAppender).
type KindRow struct{}

func (KindRow) record() {}

// RowAppender is a record that appends itself to its file: a new kind of
// row needs no case in Dir.Emit.
type RowAppender interface {
	Record
	AppendTo(d *Dir) error
}

// AppendLine appends one line to the file name (slash-separated) of d:
// line gets a reused buffer and returns it with the line's fields, no
// newline. The line is redacted as every row is.
func (d *Dir) AppendLine(name string, line func(b []byte) []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buf = append(line(d.buf[:0]), '\n')
	return d.write(filepath.FromSlash(name), d.buf)
}

// CheckKey refuses a row whose key fields are empty: what names the row.
func CheckKey(what string, fields ...string) error { return checkKey(what, fields...) }

// AppendField appends s as a CSV field and its comma.
func AppendField(b []byte, s string) []byte { return appendField(b, s) }

// AppendFloat appends v with dec decimals; NaN and ±Inf append nothing
// (an empty field).
func AppendFloat(b []byte, v float64, dec int) []byte { return appendFloat(b, v, dec) }

// Fields is one line of a CSV file read by ReadCSV, addressed by column
// name. The first parse error sticks and fails the read with its line.
type Fields struct{ r *record }

// Str is the named field, "" when the file has no such column.
func (f Fields) Str(name string) string { return f.r.str(name) }

// Int is the named field as an integer.
func (f Fields) Int(name string) int64 { return f.r.int(name) }

// Float is the named field as a number.
func (f Fields) Float(name string) float64 { return f.r.float(name) }

// OptFloat is the named field as a number, nil when empty.
func (f Fields) OptFloat(name string) *float64 { return f.r.optFloat(name) }

// ReadCSV reads the CSV file name (slash-separated) of dir whose header
// must hold header's columns, calling line for each line. A missing file
// is an error wrapping fs.ErrNotExist (see MissingIsEmpty).
func ReadCSV(dir, name, header string, line func(Fields)) error {
	return readCSV(filepath.Join(dir, filepath.FromSlash(name)), header, func(r *record) { line(Fields{r}) })
}
