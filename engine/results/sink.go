package results

import (
	"errors"
	"fmt"
	"strings"
)

// Op names of the rows the shipped scenario kinds write. timings.csv's op
// column keeps the seed suite's words; these constants are the one place they
// are spelled.
const (
	OpRead    = "read"    // a closed-loop read stream
	OpWrite   = "write"   // a write stream
	OpCeiling = "ceiling" // a scenario skipped: its first call passed the probe ceiling
	OpOpen    = "open"    // reopening a store after a restart
	coldPref  = "cold_"
	warmPref  = "warm_"
)

// ColdOp is the op of a query's first call after a restart.
func ColdOp(query string) string { return coldPref + query }

// WarmOp is the op of a query's calls after its cold one.
func WarmOp(query string) string { return warmPref + query }

// IsColdWarm reports whether op is a cold, warm or open row.
func IsColdWarm(op string) bool {
	return op == OpOpen || strings.HasPrefix(op, coldPref) || strings.HasPrefix(op, warmPref)
}

// Record is one thing a run writes. Every record of a run goes through
// one Sink: the results directory and the console see the same stream.
type Record interface{ record() }

// Raw is one repetition of a point (raw.csv).
type Raw Row

// Timing is a point's result over its reps (timings.csv).
type Timing Row

func (Raw) record()          {}
func (Timing) record()       {}
func (LoadRow) record()      {}
func (CheckLine) record()    {}
func (SizeRow) record()      {}
func (PrecisionRow) record() {}

// Sink receives a run's records.
type Sink interface {
	Emit(rec Record) error
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Record) error

// Emit calls f.
func (f SinkFunc) Emit(rec Record) error { return f(rec) }

// selfWriting is one of this package's records that appends itself to
// its file; a kind's own rows are RowAppenders.
type selfWriting interface{ appendTo(d *Dir) error }

// Emit appends rec to its file.
func (d *Dir) Emit(rec Record) error {
	switch r := rec.(type) {
	case Raw:
		return d.AppendRaw(Row(r))
	case Timing:
		return d.AppendTiming(Row(r))
	case LoadRow:
		return d.AppendLoad(r)
	case CheckLine:
		return d.AppendCheck(r)
	case SizeRow:
		return d.AppendSize(r)
	case PrecisionRow:
		return d.AppendPrecision(r)
	case WindowRow:
		return d.appendWindow(r)
	case OpenLoopRow:
		return d.appendOpenLoop(r)
	case Hist:
		return d.writeHist(r)
	case Sample:
		return d.appendSample(r)
	case RepHist:
		return nil // the point's Hist is written
	case NoiseRow:
		return d.appendNoise(r)
	case selfWriting:
		return r.appendTo(d)
	case RowAppender:
		return r.AppendTo(d)
	}
	return fmt.Errorf("results: no file for a %T record", rec)
}

// Tee sends every record to each sink in order; all of them see it even
// when one fails.
func Tee(sinks ...Sink) Sink {
	return SinkFunc(func(rec Record) error {
		var errs []error
		for _, s := range sinks {
			if err := s.Emit(rec); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	})
}
