package ops

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// Classifier names the class of a backend error; the cell's driver knows
// its database's codes and wording (drivers.ClassifyError).
type Classifier func(error) drivers.ErrorClass

// Contention counts a row's failed calls by contention class, any other
// class counted as other.
type Contention struct {
	n [5]atomic.Int64
}

func (c *Contention) Inc(class drivers.ErrorClass) {
	for i, cl := range drivers.ContentionClasses {
		if cl == class {
			c.n[i].Add(1)
			return
		}
	}
	c.n[len(drivers.ContentionClasses)].Add(1)
}

func (c *Contention) Add(o *Contention) {
	for i := range c.n {
		c.n[i].Add(o.n[i].Load())
	}
}

func (c *Contention) String() string {
	var b strings.Builder
	for i, cl := range drivers.ContentionClasses {
		fmt.Fprintf(&b, "%s=%d ", cl, c.n[i].Load())
	}
	fmt.Fprintf(&b, "other=%d", c.n[len(drivers.ContentionClasses)].Load())
	return b.String()
}

// Write runs one write transaction with try, again while it fails on
// contention (as classify names it), at most maxTries times. A failed try
// is rolled back (rollback) and counted by class in c; every try after
// the first counts in retries. A COMMIT that fails (atCommit) without a
// contention class leaves the write in doubt: the server may have
// committed it, so it is neither rolled back nor tried again.
func Write(ctx context.Context, maxTries int, classify Classifier, c *Contention, retries *atomic.Int64, try func() (err error, atCommit bool), rollback func()) (inDoubt bool, err error) {
	for n := 1; ; n++ {
		err, atCommit := try()
		if err == nil {
			return false, nil
		}
		class := classify(err)
		c.Inc(class)
		contention := class.Contention()
		if atCommit && !contention {
			return true, err
		}
		rollback()
		if !contention || n >= max(maxTries, 1) || ctx.Err() != nil {
			return false, err
		}
		retries.Add(1)
	}
}
