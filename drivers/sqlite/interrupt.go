package sqlite

/*
struct sqlite3;
void sqlite3_interrupt(struct sqlite3*);
*/
import "C"

import (
	"context"
	"reflect"
	"sync/atomic"
	"unsafe"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// dbHandle returns the connection's sqlite3 handle for sqlite3_interrupt,
// or nil if go-sqlite3's connection no longer has the field: the session
// then lets go-sqlite3 watch each call's context as before.
func dbHandle(c *sqlite3.SQLiteConn) unsafe.Pointer {
	v := reflect.ValueOf(c).Elem().FieldByName("db")
	if !v.IsValid() || v.Kind() != reflect.Pointer {
		return nil
	}
	return v.UnsafePointer()
}

// watcher interrupts a session's running statement when the context of
// the call ends. go-sqlite3 would register a context.AfterFunc and lock
// its connection around every step for each call; the runner keeps one
// context per client until the ceiling cuts a call, so the session
// registers once per context and calls go-sqlite3 with a background one.
//
// gen numbers the registrations; active holds the number of the one a
// statement runs under, so a late interrupt of an older context never
// touches a newer call.
type watcher struct {
	db      unsafe.Pointer
	watched context.Context
	stop    func() bool
	gen     int64
	active  atomic.Int64
}

// begin registers the interrupt for ctx unless it already is and marks a
// call as running under it. It returns the registration (0: none).
func (s *session) begin(ctx context.Context) int64 {
	w := &s.w
	if w.watched != ctx {
		s.unwatch()
		w.gen++
		g := w.gen
		w.watched = ctx
		w.stop = context.AfterFunc(ctx, func() { s.interrupt(g) })
	}
	w.active.Store(w.gen)
	return w.gen
}

// end marks the call over. The lock waits for an interrupt between its
// check and its call, so that it cannot hit the session's next statement.
func (s *session) end() {
	s.mu.Lock()
	s.w.active.Store(0)
	s.mu.Unlock()
}

// unwatch drops the registration.
func (s *session) unwatch() {
	if s.w.stop != nil {
		s.w.stop()
		s.w.stop, s.w.watched = nil, nil
	}
}

// interrupt stops the statement running under registration g, if one
// is. An interrupt that lands just after the statement ended is harmless:
// SQLite clears it once no statement runs. s.mu keeps Close from freeing
// the connection meanwhile.
func (s *session) interrupt(g int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil && s.w.active.Load() == g {
		C.sqlite3_interrupt((*C.struct_sqlite3)(s.w.db))
	}
}
