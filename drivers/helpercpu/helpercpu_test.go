package helpercpu

import (
	"testing"
	"time"
)

func TestTotalSumsSources(t *testing.T) {
	before := Total()
	Register(func() time.Duration { return 3 * time.Millisecond })
	Register(func() time.Duration { return 4 * time.Millisecond })
	if got := Total() - before; got != 7*time.Millisecond {
		t.Errorf("Total grew by %v, want 7ms", got)
	}
}
