//go:build unix

package measure

import (
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers/helpercpu"
)

// TestProcessCPUCountsHelpers: the client CPU counts the processes a
// driver runs for the clients (adapter processes) with the engine's own.
func TestProcessCPUCountsHelpers(t *testing.T) {
	var helper time.Duration
	helpercpu.Register(func() time.Duration { return helper })
	before := processCPU()
	helper = time.Hour
	if got := processCPU() - before; got < time.Hour {
		t.Errorf("client CPU grew by %v while a helper process used an hour", got)
	}
}
