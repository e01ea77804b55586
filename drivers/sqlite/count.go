package sqlite

/*
#include <stdlib.h>

struct sqlite3;
struct sqlite3_stmt;
int sqlite3_reset(struct sqlite3_stmt*);
int sqlite3_bind_null(struct sqlite3_stmt*, int);
int sqlite3_bind_int64(struct sqlite3_stmt*, int, long long);
int sqlite3_bind_double(struct sqlite3_stmt*, int, double);
int sqlite3_bind_text(struct sqlite3_stmt*, int, const char*, int, void(*)(void*));
int sqlite3_bind_blob(struct sqlite3_stmt*, int, const void*, int, void(*)(void*));
int sqlite3_step(struct sqlite3_stmt*);
int sqlite3_extended_errcode(struct sqlite3*);
const char* sqlite3_errmsg(struct sqlite3*);

// mentat_arg is one parameter in C memory: kind 0 NULL, 1 integer,
// 2 real, 3 text, 4 blob (p and n: bytes in the statement's scratch
// buffer, bound without a copy).
typedef struct { int kind; int n; long long i; double f; const void* p; } mentat_arg;

// mentat_count binds a, steps st to its end counting the rows, and resets
// it: a counted query in one crossing from Go. On an error it returns the
// code with st not reset, so that the caller can read the message first.
static int mentat_count(struct sqlite3_stmt* st, const mentat_arg* a, int n, long long* rows) {
	int rc;
	sqlite3_reset(st);
	for (int i = 0; i < n; i++) {
		switch (a[i].kind) {
		case 0: rc = sqlite3_bind_null(st, i + 1); break;
		case 1: rc = sqlite3_bind_int64(st, i + 1, a[i].i); break;
		case 2: rc = sqlite3_bind_double(st, i + 1, a[i].f); break;
		case 3: rc = sqlite3_bind_text(st, i + 1, (const char*)a[i].p, a[i].n, (void (*)(void*))0); break;
		default: rc = sqlite3_bind_blob(st, i + 1, a[i].p, a[i].n, (void (*)(void*))0); break;
		}
		if (rc != 0) {
			return rc;
		}
	}
	long long k = 0;
	while ((rc = sqlite3_step(st)) == 100) { // SQLITE_ROW
		k++;
	}
	*rows = k;
	if (rc == 101) { // SQLITE_DONE
		sqlite3_reset(st);
	}
	return rc;
}
*/
import "C"

import (
	"database/sql/driver"
	"reflect"
	"unsafe"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// counter runs a statement's counted queries (no destination for the
// rows) in one cgo call: reset, bind, every step, reset. Through
// go-sqlite3 the same query takes three crossings (bind and first step,
// the step that ends it, the reset in Close), a rows object and its
// locks. Parameters and the count live in C memory the counter owns, so
// the call passes C no Go pointer and allocates nothing. A parameter of another
// type (time.Time) takes go-sqlite3's path.
type counter struct {
	st     *C.struct_sqlite3_stmt
	db     *C.struct_sqlite3
	args   *C.mentat_arg // nargs of them, C memory
	nargs  int
	buf    unsafe.Pointer // text and blob bytes, C memory
	bufCap int
	rows   *C.longlong // the count, C memory: a Go variable would escape
}

// newCounter returns the counter of st on the connection db, or nil if
// go-sqlite3's statement no longer has its handle where expected.
func newCounter(st *sqlite3.SQLiteStmt, db unsafe.Pointer, nargs int) *counter {
	h := stmtHandle(st)
	if h == nil || db == nil {
		return nil
	}
	c := &counter{st: (*C.struct_sqlite3_stmt)(h), db: (*C.struct_sqlite3)(db), nargs: nargs}
	if nargs > 0 {
		c.args = (*C.mentat_arg)(C.calloc(C.size_t(nargs), C.size_t(unsafe.Sizeof(C.mentat_arg{}))))
	}
	// Never NULL: an empty text or blob bound at NULL would be SQL NULL.
	c.buf, c.bufCap = C.malloc(64), 64
	c.rows = (*C.longlong)(C.malloc(C.size_t(unsafe.Sizeof(C.longlong(0)))))
	return c
}

// count binds args (converted by convertArg, in order) and counts the
// rows. ok is false when an argument needs go-sqlite3's path.
func (c *counter) count(args []driver.NamedValue) (rows int64, err error, ok bool) {
	if len(args) != c.nargs {
		return 0, nil, false
	}
	need := 0
	for _, a := range args {
		switch v := a.Value.(type) {
		case string:
			need += len(v)
		case []byte:
			need += len(v)
		case nil, int64, float64, bool:
		default:
			return 0, nil, false
		}
	}
	if need > c.bufCap {
		C.free(c.buf)
		c.buf, c.bufCap = C.malloc(C.size_t(need)), need
	}
	cargs := unsafe.Slice(c.args, c.nargs)
	buf := unsafe.Slice((*byte)(c.buf), c.bufCap)
	off := 0
	for i, a := range args {
		ca := &cargs[i]
		switch v := a.Value.(type) {
		case nil:
			ca.kind = 0
		case int64:
			ca.kind, ca.i = 1, C.longlong(v)
		case bool:
			ca.kind, ca.i = 1, 0
			if v {
				ca.i = 1
			}
		case float64:
			ca.kind, ca.f = 2, C.double(v)
		case string:
			ca.kind, ca.n, ca.p = 3, C.int(len(v)), unsafe.Add(c.buf, off)
			off += copy(buf[off:], v)
		case []byte:
			ca.kind, ca.n, ca.p = 4, C.int(len(v)), unsafe.Add(c.buf, off)
			off += copy(buf[off:], v)
		}
	}
	*c.rows = 0
	rc := C.mentat_count(c.st, c.args, C.int(len(args)), c.rows)
	if rc != 101 { // SQLITE_DONE
		return int64(*c.rows), c.err(rc), true
	}
	return int64(*c.rows), nil, true
}

// err is the error of the call that returned rc; it resets the statement
// after reading the connection's message.
func (c *counter) err(rc C.int) error {
	e := stepError{
		se:  sqlite3.Error{Code: sqlite3.ErrNo(rc & 0xff), ExtendedCode: sqlite3.ErrNoExtended(C.sqlite3_extended_errcode(c.db))},
		msg: C.GoString(C.sqlite3_errmsg(c.db)),
	}
	C.sqlite3_reset(c.st)
	return e
}

// free releases the C memory; the statement must be finalized first.
func (c *counter) free() {
	if c.args != nil {
		C.free(unsafe.Pointer(c.args))
		c.args = nil
	}
	if c.buf != nil {
		C.free(c.buf)
		c.buf = nil
	}
	if c.rows != nil {
		C.free(unsafe.Pointer(c.rows))
		c.rows = nil
	}
}

// stepError is SQLite's error of a counted query, with the connection's
// message as go-sqlite3 gives it; errors.As finds its sqlite3.Error.
type stepError struct {
	se  sqlite3.Error
	msg string
}

func (e stepError) Error() string {
	if e.msg == "" {
		return e.se.Error()
	}
	return e.msg
}

func (e stepError) Unwrap() error { return e.se }

// stmtHandle returns go-sqlite3's sqlite3_stmt handle of st, or nil if
// its statement no longer has the field.
func stmtHandle(st *sqlite3.SQLiteStmt) unsafe.Pointer {
	v := reflect.ValueOf(st).Elem().FieldByName("s")
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	return v.UnsafePointer()
}
