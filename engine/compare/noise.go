package compare

import (
	"fmt"
	"math"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// noiseDiffers says why the machine's noise of two runs differs too much
// for a change between them to be the build's: the other processes' share
// of the CPU (on average, or in the busiest row) or the hypervisor's
// differs by more than boundPct points of the machine's CPU, or the CPU
// frequency by more than 10%. "" when
// it does not, or when either side did not record it.
func noiseDiffers(old, new results.Noise, boundPct float64) string {
	if old.Rows == 0 || new.Rows == 0 || boundPct <= 0 {
		return ""
	}
	share := func(what string, o, n float64) string {
		if math.IsNaN(o) || math.IsNaN(n) || math.Abs(n-o) <= boundPct {
			return ""
		}
		return fmt.Sprintf("%s %.0f%% of the CPU during NEW, %.0f%% during OLD", what, n, o)
	}
	if r := share("other processes took", old.OtherPct, new.OtherPct); r != "" {
		return r
	}
	// A rep measured beside a burst moves its point's p99 and rate even
	// when the run's mean noise is alike: the busiest rows count too.
	if !math.IsNaN(old.OtherPct) && !math.IsNaN(new.OtherPct) && math.Abs(new.MaxOtherPct-old.MaxOtherPct) > boundPct {
		return fmt.Sprintf("other processes took up to %.0f%% of the CPU in a rep during NEW, at most %.0f%% during OLD", new.MaxOtherPct, old.MaxOtherPct)
	}
	if r := share("the hypervisor stole", old.StealPct, new.StealPct); r != "" {
		return r
	}
	if old.MHz > 0 && new.MHz > 0 && math.Abs(new.MHz-old.MHz) > 0.1*old.MHz {
		return fmt.Sprintf("the CPUs ran at %.0f MHz during NEW, %.0f MHz during OLD", new.MHz, old.MHz)
	}
	return ""
}
