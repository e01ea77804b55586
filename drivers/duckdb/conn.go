package duckdb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// reinterrupt is how often an interrupt is repeated while the call is
// still running after its context ended: DuckDB clears the flag at some
// stages of a query, duckdb-go repeats it for the same reason.
const reinterrupt = 100 * time.Millisecond

// dconn is one raw DuckDB connection.
type dconn struct {
	// imu is held to interrupt and to disconnect, so an interrupt from a
	// context watcher or Backend.Close never touches a freed connection.
	imu sync.Mutex
	c   mapping.Connection
}

func (d *dconn) interrupt() {
	d.imu.Lock()
	if d.c.Ptr != nil {
		mapping.Interrupt(d.c)
	}
	d.imu.Unlock()
}

func (d *dconn) disconnect() {
	d.imu.Lock()
	mapping.Disconnect(&d.c)
	d.imu.Unlock()
}

func (d *dconn) closed() bool { return d.c.Ptr == nil }

func noop() {}

// watch interrupts the connection when ctx ends before the returned stop
// is called. stop waits for an interrupter that already started, so it
// cannot hit the next call on the connection.
func (d *dconn) watch(ctx context.Context) (stop func()) {
	if ctx.Done() == nil {
		return noop
	}
	done := make(chan struct{})
	exited := make(chan struct{})
	cancel := context.AfterFunc(ctx, func() {
		defer close(exited)
		t := time.NewTicker(reinterrupt)
		defer t.Stop()
		for {
			d.interrupt()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() {
		if cancel() {
			return
		}
		close(done)
		<-exited
	}
}

// dbError is an error DuckDB reported.
type dbError struct {
	msg string
	typ mapping.ErrorType
}

func (e *dbError) Error() string { return e.msg }

// resultError turns a failed result into an error; an interrupt caused by
// ctx also matches ctx's error with errors.Is.
func resultError(ctx context.Context, res *mapping.Result) error {
	err := &dbError{msg: mapping.ResultError(res), typ: mapping.ResultErrorType(res)}
	if err.msg == "" {
		err.msg = "unknown DuckDB error"
	}
	if cerr := ctx.Err(); cerr != nil && err.typ == mapping.ErrorTypeInterrupt {
		return errors.Join(cerr, err)
	}
	return err
}

// exec runs one or more statements without parameters.
func (d *dconn) exec(ctx context.Context, sql string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	stop := d.watch(ctx)
	var res mapping.Result
	state := mapping.Query(d.c, sql, &res)
	stop()
	defer mapping.DestroyResult(&res)
	if state == mapping.StateError {
		return resultError(ctx, &res)
	}
	return nil
}

// paramTypes reads the types DuckDB inferred for a statement's parameters
// (TypeInvalid where it could not).
func paramTypes(ps mapping.PreparedStatement) []mapping.Type {
	n := int(mapping.NParams(ps))
	types := make([]mapping.Type, n)
	for i := range types {
		types[i] = mapping.ParamType(ps, mapping.IdxT(i+1))
	}
	return types
}

// bindArgs binds args to ps. Values are bound as the parameter's inferred
// type when they convert losslessly: DuckDB re-plans a prepared statement
// whenever a bound value's type differs from the inferred one (an int64
// bound to an INTEGER parameter cost 17% more per lookup, measured).
func bindArgs(ps mapping.PreparedStatement, types []mapping.Type, args []any) error {
	if len(args) != len(types) {
		return fmt.Errorf("statement has %d parameters, got %d arguments", len(types), len(args))
	}
	for i, a := range args {
		if err := bindArg(ps, mapping.IdxT(i+1), types[i], a); err != nil {
			return fmt.Errorf("parameter %d: %w", i+1, err)
		}
	}
	return nil
}

func bindArg(ps mapping.PreparedStatement, idx mapping.IdxT, want mapping.Type, a any) error {
	var st mapping.State
	if i, ok := asInt64(a); ok {
		st = bindInt(ps, idx, want, i)
	} else {
		switch x := a.(type) {
		case nil:
			st = mapping.BindNull(ps, idx)
		case uint64:
			st = mapping.BindUInt64(ps, idx, x)
		case uint:
			st = mapping.BindUInt64(ps, idx, uint64(x))
		case float64:
			st = bindFloat(ps, idx, want, x)
		case float32:
			st = bindFloat(ps, idx, want, float64(x))
		case bool:
			st = mapping.BindBoolean(ps, idx, x)
		case string:
			st = mapping.BindVarchar(ps, idx, x)
		case []byte:
			st = mapping.BindBlob(ps, idx, x)
		case time.Time:
			st = bindTime(ps, idx, want, x)
		default:
			return fmt.Errorf("unsupported parameter type %T", a)
		}
	}
	if st == mapping.StateError {
		return fmt.Errorf("cannot bind %T value %v", a, a)
	}
	return nil
}

// asInt64 reports the value of the signed and small unsigned integer types.
func asInt64(a any) (int64, bool) {
	switch x := a.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint8:
		return int64(x), true
	}
	return 0, false
}

func bindInt(ps mapping.PreparedStatement, idx mapping.IdxT, want mapping.Type, i int64) mapping.State {
	switch want {
	case mapping.TypeInteger:
		if i >= math.MinInt32 && i <= math.MaxInt32 {
			return mapping.BindInt32(ps, idx, int32(i))
		}
	case mapping.TypeSmallInt:
		if i >= math.MinInt16 && i <= math.MaxInt16 {
			return mapping.BindInt16(ps, idx, int16(i))
		}
	case mapping.TypeTinyInt:
		if i >= math.MinInt8 && i <= math.MaxInt8 {
			return mapping.BindInt8(ps, idx, int8(i))
		}
	case mapping.TypeUBigInt:
		if i >= 0 {
			return mapping.BindUInt64(ps, idx, uint64(i))
		}
	case mapping.TypeUInteger:
		if i >= 0 && i <= math.MaxUint32 {
			return mapping.BindUInt32(ps, idx, uint32(i))
		}
	case mapping.TypeUSmallInt:
		if i >= 0 && i <= math.MaxUint16 {
			return mapping.BindUInt16(ps, idx, uint16(i))
		}
	case mapping.TypeUTinyInt:
		if i >= 0 && i <= math.MaxUint8 {
			return mapping.BindUInt8(ps, idx, uint8(i))
		}
	case mapping.TypeDouble:
		if i >= -1<<53 && i <= 1<<53 {
			return mapping.BindDouble(ps, idx, float64(i))
		}
	}
	return mapping.BindInt64(ps, idx, i)
}

func bindFloat(ps mapping.PreparedStatement, idx mapping.IdxT, want mapping.Type, f float64) mapping.State {
	if want == mapping.TypeFloat && float64(float32(f)) == f {
		return mapping.BindFloat(ps, idx, float32(f))
	}
	return mapping.BindDouble(ps, idx, f)
}

func bindTime(ps mapping.PreparedStatement, idx mapping.IdxT, want mapping.Type, t time.Time) mapping.State {
	switch want {
	case mapping.TypeTimestampTZ:
		return mapping.BindTimestampTZ(ps, idx, mapping.NewTimestamp(t.UnixMicro()))
	case mapping.TypeDate:
		u := t.UTC()
		if u.Equal(u.Truncate(24 * time.Hour)) {
			return mapping.BindDate(ps, idx, mapping.NewDate(int32(u.Unix()/86400)))
		}
	}
	return mapping.BindTimestamp(ps, idx, mapping.NewTimestamp(t.UnixMicro()))
}
