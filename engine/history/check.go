package history

import (
	"fmt"
	"io"
	"strings"
)

// Verdict is what the history says of one run: the change points it is
// the first run of, regressions and improvements apart.
type Verdict struct {
	Run                       Run
	Regressions, Improvements []SeriesChange
}

// Check returns the verdict on the run id.
func (a *Analysis) Check(id string) Verdict {
	v := Verdict{}
	for _, r := range a.Runs {
		if r.ID == id {
			v.Run = r
		}
	}
	for _, c := range a.At(id) {
		if c.Regression {
			v.Regressions = append(v.Regressions, c)
		} else {
			v.Improvements = append(v.Improvements, c)
		}
	}
	return v
}

// Write prints the verdict: each change with its series, magnitude,
// interval, p-value, the earlier revision and what else changed.
func (v Verdict) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "run %s (%s, %s, revision %s)\n", v.Run.ID, v.Run.Name, v.Run.Started.Format("2006-01-02 15:04Z"), orUnknown(shortRev(v.Run.Revision)))
	if len(v.Regressions)+len(v.Improvements) == 0 {
		b.WriteString("no change point starts at this run: its numbers are in line with its series\n")
	}
	for _, x := range []struct {
		what string
		cs   []SeriesChange
	}{{"REGRESSION", v.Regressions}, {"improvement", v.Improvements}} {
		for _, c := range x.cs {
			fmt.Fprintf(&b, "%s %s: %s after %s (revisions %s)\n", x.what, c.Series.Key, describeChange(c.ChangePoint),
				c.Before.Name, c.Revisions())
			for _, d := range c.Changed {
				fmt.Fprintf(&b, "  changed there: %s %s -> %s\n", d.What, d.Before, d.After)
			}
			if c.Noise != "" {
				fmt.Fprintf(&b, "  machine noise: %s\n", c.Noise)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// describeChange is "+15.2% [+12.0%, +18.5%] p=3e-09 (40 runs before, 20 after)".
func describeChange(c ChangePoint) string {
	return fmt.Sprintf("%s [%s, %s] p=%.2g (%d runs before, %d after)", signedPct(c.Ratio), signedPct(c.Low), signedPct(c.High),
		c.PValue, c.Index-c.Start, c.End-c.Index)
}

func signedPct(ratio float64) string { return fmt.Sprintf("%+.1f%%", 100*(ratio-1)) }
