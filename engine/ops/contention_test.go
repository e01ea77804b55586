package ops

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
)

func TestWriteRetries(t *testing.T) {
	busy := errors.New("busy")
	serial := errors.New("serial")
	timeout := errors.New("timeout")
	other := errors.New("syntax error")
	// The driver's classification, as the retry logic receives it.
	classify := func(err error) drivers.ErrorClass {
		return map[error]drivers.ErrorClass{busy: drivers.ErrorBusy, serial: drivers.ErrorSerialization, timeout: drivers.ErrorTimeout}[err]
	}
	type try struct {
		err      error
		atCommit bool
	}
	for _, tc := range []struct {
		name      string
		tries     []try
		max       int
		inDoubt   bool
		failed    bool
		rollbacks int
		retries   int64
		counts    string
	}{
		{"first try", []try{{}}, 3, false, false, 0, 0, "busy=0 serialization=0 deadlock=0 conflict=0 other=0"},
		{"busy then ok", []try{{busy, false}, {}}, 3, false, false, 1, 1, "busy=1 serialization=0 deadlock=0 conflict=0 other=0"},
		{"serialization at commit is retried", []try{{serial, true}, {serial, true}, {}}, 3, false, false, 2, 2, "busy=0 serialization=2 deadlock=0 conflict=0 other=0"},
		{"out of tries", []try{{busy, false}, {busy, false}}, 2, false, true, 2, 1, "busy=2 serialization=0 deadlock=0 conflict=0 other=0"},
		{"another error is not retried", []try{{other, false}}, 5, false, true, 1, 0, "busy=0 serialization=0 deadlock=0 conflict=0 other=1"},
		{"a timeout is not contention", []try{{timeout, false}}, 5, false, true, 1, 0, "busy=0 serialization=0 deadlock=0 conflict=0 other=1"},
		{"a timeout at commit is in doubt", []try{{timeout, true}}, 5, true, true, 0, 0, "busy=0 serialization=0 deadlock=0 conflict=0 other=1"},
		{"a failed commit is in doubt", []try{{other, true}}, 5, true, true, 0, 0, "busy=0 serialization=0 deadlock=0 conflict=0 other=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Contention
			var retries atomic.Int64
			n, rollbacks := 0, 0
			inDoubt, err := Write(context.Background(), tc.max, classify, &c, &retries, func() (error, bool) {
				tr := tc.tries[n]
				n++
				return tr.err, tr.atCommit
			}, func() { rollbacks++ })
			if inDoubt != tc.inDoubt || (err != nil) != tc.failed || rollbacks != tc.rollbacks || retries.Load() != tc.retries || c.String() != tc.counts {
				t.Errorf("in doubt %v, err %v, %d rollbacks, %d retries, %s", inDoubt, err, rollbacks, retries.Load(), c.String())
			}
		})
	}
}
