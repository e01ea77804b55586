package evidence

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers/helpercpu"
)

// TestCPUCountsHelperProcesses: the split's engine CPU counts what the
// processes a driver runs for the client (an adapter per session) used,
// as precision.csv's client CPU does.
func TestCPUCountsHelperProcesses(t *testing.T) {
	var helper atomic.Int64
	helpercpu.Register(func() time.Duration { return time.Duration(helper.Load()) })
	before := CPU()
	helper.Store(int64(time.Hour))
	if grew := CPU() - before; grew < time.Hour {
		t.Errorf("CPU grew by %v while a helper process used an hour", grew)
	}
}
