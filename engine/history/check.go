package history

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Verdict is what the history says of one run: the change points it is
// the first run of, regressions and improvements apart.
type Verdict struct {
	Run                       Run
	Regressions, Improvements []SeriesChange
	// Series is how many series the run is in; Young how many of them
	// hold fewer than MinRunsBefore runs before it: those are not judged,
	// and a change found in one is not part of the verdict.
	Series, Young int
	// Hosts are the machines whose runs make the run's series.
	Hosts []string
	// Unjudged are the changes found at the run in young series.
	Unjudged []SeriesChange
}

// MinRunsBefore is how many runs a series must hold before a run for the
// run to be judged in it: a level is not known from two runs, and a
// series a machine kind has just started is young, not stable.
const MinRunsBefore = 4

// Young reports whether the change starts after fewer than MinRunsBefore
// runs of its series: found, but not judged.
func (c ChangePoint) Young() bool { return c.Index < MinRunsBefore }

// Check returns the verdict on the run id.
func (a *Analysis) Check(id string) Verdict {
	v := Verdict{}
	for _, r := range a.Runs {
		if r.ID == id {
			v.Run = r
		}
	}
	young := map[*Series]bool{}
	hosts := map[string]bool{}
	for _, sr := range a.Series {
		i := slices.IndexFunc(sr.Runs, func(r Run) bool { return r.ID == id })
		if i < 0 {
			continue
		}
		v.Series++
		for _, h := range sr.Hosts {
			hosts[h] = true
		}
		if i < MinRunsBefore {
			v.Young++
			young[sr] = true
		}
	}
	v.Hosts = sortedKeys(hosts)
	for _, c := range a.At(id) {
		if young[c.Series] {
			v.Unjudged = append(v.Unjudged, c)
			continue
		}
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
	if len(v.Hosts) > 0 {
		fmt.Fprintf(&b, "its series (this kind of machine: %s) hold runs from %d machine(s): %s\n", orUnknown(v.Run.Machine), len(v.Hosts), strings.Join(v.Hosts, ", "))
	}
	if v.Young > 0 {
		fmt.Fprintf(&b, "young series: %d of its %d series hold fewer than %d runs before it on this kind of machine: too few to judge, no verdict from them\n",
			v.Young, v.Series, MinRunsBefore)
		for _, c := range v.Unjudged {
			fmt.Fprintf(&b, "  not judged in a young series: %s: %s after %s\n", c.Series.Key, describeChange(c.ChangePoint), c.Before.Name)
		}
	}
	switch {
	case len(v.Regressions)+len(v.Improvements) > 0:
	case v.Young == v.Series:
		b.WriteString("not judged: every series of this run is young; add more runs from this kind of machine\n")
	case v.Young > 0:
		b.WriteString("no change point starts at this run in its other series: their numbers are in line\n")
	default:
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
			writeWhy(&b, c.ChangePoint)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeWhy lists what moved between the runs either side of a change.
func writeWhy(b *strings.Builder, c ChangePoint) {
	if !c.WhyKept || len(c.Why) == 0 {
		fmt.Fprintf(b, "  why: %s\n", c.WhySay())
		return
	}
	b.WriteString("  why:\n")
	for i, r := range c.Why {
		fmt.Fprintf(b, "    %d. %s\n", i+1, r)
	}
}

// describeChange is "+15.2% [+12.0%, +18.5%] p=3e-09 (40 runs before, 20 after)".
func describeChange(c ChangePoint) string {
	return fmt.Sprintf("%s [%s, %s] p=%.2g (%d runs before, %d after)", signedPct(c.Ratio), signedPct(c.Low), signedPct(c.High),
		c.PValue, c.Index-c.Start, c.End-c.Index)
}

func signedPct(ratio float64) string { return fmt.Sprintf("%+.1f%%", 100*(ratio-1)) }
