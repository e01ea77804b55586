package ops

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
)

// Contention classes, counted per row.
const (
	ClassBusy          = "busy"          // SQLITE_BUSY, SQLITE_LOCKED
	ClassSerialization = "serialization" // PostgreSQL 40001
	ClassDeadlock      = "deadlock"      // PostgreSQL 40P01
	ClassConflict      = "conflict"      // DuckDB transaction conflicts
)

var classes = []string{ClassBusy, ClassSerialization, ClassDeadlock, ClassConflict}

// Classify names the contention class of a backend error, "" for any
// other error. Drivers wrap the database's own message, which names it.
func Classify(err error) string {
	if err == nil {
		return ""
	}
	m := strings.ToLower(err.Error())
	switch {
	case strings.Contains(m, "database is locked"), strings.Contains(m, "database table is locked"),
		strings.Contains(m, "sqlite_busy"), strings.Contains(m, "sqlite_locked"):
		return ClassBusy
	case strings.Contains(m, "40001"), strings.Contains(m, "could not serialize access"):
		return ClassSerialization
	case strings.Contains(m, "40p01"), strings.Contains(m, "deadlock detected"):
		return ClassDeadlock
	case strings.Contains(m, "transaction conflict"), strings.Contains(m, "conflict on"), strings.Contains(m, "write-write conflict"):
		return ClassConflict
	}
	return ""
}

// Contention counts a row's failed calls by contention class ("" = other).
type Contention struct {
	n [5]atomic.Int64
}

func (c *Contention) Inc(class string) {
	for i, cl := range classes {
		if cl == class {
			c.n[i].Add(1)
			return
		}
	}
	c.n[len(classes)].Add(1)
}

func (c *Contention) Add(o *Contention) {
	for i := range c.n {
		c.n[i].Add(o.n[i].Load())
	}
}

func (c *Contention) String() string {
	var b strings.Builder
	for i, cl := range classes {
		fmt.Fprintf(&b, "%s=%d ", cl, c.n[i].Load())
	}
	fmt.Fprintf(&b, "other=%d", c.n[len(classes)].Load())
	return b.String()
}

// Write runs one write transaction with try, again while it fails on
// contention, at most maxTries times. A failed try is rolled back
// (rollback) and counted by class in c; every try after the first counts
// in retries. A COMMIT that fails (atCommit) without a contention class
// leaves the write in doubt: the server may have committed it, so it is
// neither rolled back nor tried again.
func Write(ctx context.Context, maxTries int, c *Contention, retries *atomic.Int64, try func() (err error, atCommit bool), rollback func()) (inDoubt bool, err error) {
	for n := 1; ; n++ {
		err, atCommit := try()
		if err == nil {
			return false, nil
		}
		class := Classify(err)
		c.Inc(class)
		if atCommit && class == "" {
			return true, err
		}
		rollback()
		if class == "" || n >= max(maxTries, 1) || ctx.Err() != nil {
			return false, err
		}
		retries.Add(1)
	}
}
