package results

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// CompareHTML writes a comparison as one self-contained page (the report's
// CSS, no script, no network): what makes the runs differ, the verdict per
// point and metric with regressions and improvements marked, the points
// left out because their definitions changed, and every point's timings of
// both runs side by side with the change.
func CompareHTML(rep Report, w io.Writer) error {
	p := &page{}
	p.section("verdict", "Verdict", func() {
		switch {
		case rep.Refused:
			p.f("<p class=\"verdict fail\">Refused: the runs differ in what they measured (below); rerun compare with -force to compare them anyway.</p>\n")
		case rep.Regressed():
			p.f("<p class=\"verdict fail\">%d regression(s).</p>\n", len(rep.Findings))
		case rep.Undecided() > 0:
			// No verdict is not a pass: never shown in green.
			p.f("<p class=\"verdict undecided\">Cannot decide %d of %d metrics (%s): no regression was found, which is not a pass.</p>\n",
				rep.Undecided(), len(rep.Verdicts), esc(undecidedWhy(rep)))
		default:
			p.f("<p class=\"verdict pass\">No regression.</p>\n")
		}
		if rep.NoiseOld.Rows > 0 || rep.NoiseNew.Rows > 0 {
			p.f("<p class=\"meta\">Machine noise: OLD %s; NEW %s.</p>\n", esc(rep.NoiseOld.String()), esc(rep.NoiseNew.String()))
		}
		if rep.NoiseReason != "" {
			p.f("<p class=\"verdict undecided\">The machine's noise differs: %s.</p>\n", esc(rep.NoiseReason))
		}
		method := fmt.Sprintf("threshold %s%%", fmtPct(rep.ThresholdPct))
		if rep.Method == MethodStats {
			method = fmt.Sprintf("statistics over reps (Mann-Whitney U at alpha %s), threshold %s%%", strconv.FormatFloat(rep.Alpha, 'f', -1, 64), fmtPct(rep.ThresholdPct))
		}
		p.f("<p class=\"meta\">OLD %s, NEW %s; %s; %d points compared, %d only in NEW.</p>\n", esc(rep.Old), esc(rep.New), esc(method), rep.Compared, rep.OnlyNew)
	})
	if len(rep.Differences) > 0 {
		p.section("differences", "What differs between the runs", func() {
			var rows [][]string
			for _, d := range rep.Differences {
				rows = append(rows, []string{d.Key, d.Old, d.New})
			}
			p.table([]string{"key", "OLD", "NEW"}, nil, rows)
		})
	}
	if len(rep.NotCompared) > 0 {
		p.section("notcompared", "Changed definitions, not compared", func() {
			p.f("<ul>\n")
			for _, n := range rep.NotCompared {
				p.f("<li>%s</li>\n", esc(n))
			}
			p.f("</ul>\n")
		})
	}
	if len(rep.Verdicts) > 0 {
		p.section("verdicts", "Per point and metric", func() {
			p.f("<div class=\"scroll\"><table>\n<thead><tr><th>point</th><th>metric</th><th class=\"num\">OLD median</th><th class=\"num\">NEW median</th><th class=\"num\">change</th><th>interval</th><th class=\"num\">p</th><th>outcome</th></tr></thead>\n<tbody>\n")
			for _, v := range rep.Verdicts {
				interval := "—"
				if !math.IsInf(v.Lo, 0) && !math.IsInf(v.Hi, 0) && !math.IsNaN(v.Lo) {
					interval = fmt.Sprintf("[%+.1f%%, %+.1f%%]", 100*(v.Lo-1), 100*(v.Hi-1))
				}
				change := "—"
				if !math.IsNaN(v.Ratio) {
					change = fmt.Sprintf("%+.1f%%", v.Pct())
				}
				outcome := v.Outcome
				if v.Reason != "" {
					outcome += ": " + v.Reason
				}
				p.f("<tr><td>%s</td><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td>%s</td><td class=\"num\">%.3f</td><td class=\"%s\">%s</td></tr>\n",
					esc(v.What), esc(v.Metric), fmtMs(v.OldMedian), fmtMs(v.NewMedian), change, interval, v.P, outcomeClass(v.Outcome), esc(outcome))
			}
			p.f("</tbody></table></div>\n")
		})
	}
	var other []Finding
	for _, f := range rep.Findings {
		if f.Stat == nil {
			other = append(other, f)
		}
	}
	if len(other) > 0 {
		p.section("findings", "Regressions", func() {
			var rows [][]string
			for _, f := range other {
				rows = append(rows, []string{f.Kind, f.What, strconv.FormatFloat(f.Old, 'f', -1, 64), strconv.FormatFloat(f.New, 'f', -1, 64), fmt.Sprintf("%+.1f%%", f.Pct)})
			}
			p.table([]string{"kind", "what", "OLD", "NEW", "change"}, []bool{false, false, true, true, true}, rows)
		})
	}
	if !rep.Refused {
		oldRows, errOld := ReadTimings(rep.Old)
		newRows, errNew := ReadTimings(rep.New)
		if errOld == nil && errNew == nil {
			p.section("sidebyside", "Timings side by side", func() { p.sideBySide(rep, oldRows, newRows) })
		}
	}
	if len(rep.Notes) > 0 {
		p.section("notes", "Notes", func() {
			p.f("<ul>\n")
			for _, n := range rep.Notes {
				p.f("<li>%s</li>\n", esc(n))
			}
			p.f("</ul>\n")
		})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>mentat-spec compare</title>\n<style>\n%s</style>\n</head>\n<body>\n", reportCSS)
	fmt.Fprintf(&b, "<header><h1>mentat-spec compare</h1><p class=\"meta\">%s &rarr; %s</p></header>\n<nav><ul>", esc(rep.Old), esc(rep.New))
	for _, s := range p.toc {
		fmt.Fprintf(&b, "<li><a href=\"#%s\">%s</a></li>", s[0], esc(s[1]))
	}
	b.WriteString("</ul></nav>\n<main>\n")
	b.WriteString(p.b.String())
	b.WriteString("</main>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtPct(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func outcomeClass(outcome string) string {
	switch outcome {
	case OutRegression:
		return "fail"
	case OutImprovement:
		return "pass"
	case OutUndecided, OutNoisy:
		return "undecided"
	}
	return "skip"
}

// undecidedWhy names what kept the undecided metrics from a verdict.
func undecidedWhy(rep Report) string {
	var few, noisy bool
	for _, v := range rep.Verdicts {
		few = few || v.Outcome == OutUndecided
		noisy = noisy || v.Outcome == OutNoisy
	}
	switch {
	case few && noisy:
		return "too few reps, and the machine's noise differed"
	case noisy:
		return "the machine's noise differed between the runs"
	}
	return "too few reps"
}

// sideBySide is every point of either run with OLD's and NEW's p50, p99
// and throughput; a point judged a regression or improvement is marked.
func (p *page) sideBySide(rep Report, oldRows, newRows []Row) {
	marks := map[string]string{}
	for _, v := range rep.Verdicts {
		if v.Outcome == OutRegression || (v.Outcome == OutImprovement && marks[v.What] != OutRegression) {
			marks[v.What] = v.Outcome
		}
	}
	for _, f := range rep.Findings {
		marks[f.What] = OutRegression
	}
	oldBy := map[Key]Row{}
	for _, r := range lastPerKey(oldRows, Row.Key) {
		oldBy[r.Key()] = r
	}
	seen := map[Key]bool{}
	p.f("<div class=\"scroll\"><table>\n<thead><tr><th>point</th><th class=\"num\">p50 OLD</th><th class=\"num\">p50 NEW</th><th class=\"num\">p99 OLD</th><th class=\"num\">p99 NEW</th><th class=\"num\">ops/s OLD</th><th class=\"num\">ops/s NEW</th><th>change</th></tr></thead>\n<tbody>\n")
	row := func(k Key, o, n *Row) {
		cell := func(r *Row, f func(Row) string) string {
			if r == nil {
				return "—"
			}
			return f(*r)
		}
		p50 := func(r Row) string { return fmtMs(r.P50Ms) }
		p99 := func(r Row) string { return fmtMs(r.P99Ms) }
		ops := func(r Row) string { return fmtRate(r.Throughput) }
		mark := marks[k.String()]
		switch {
		case rep.comparable != nil && !rep.comparable(k):
			mark = "changed definition"
		case o == nil:
			mark = "only in NEW"
		case n == nil:
			mark = "only in OLD"
		}
		p.f("<tr><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"%s\">%s</td></tr>\n",
			esc(k.String()), cell(o, p50), cell(n, p50), cell(o, p99), cell(n, p99), cell(o, ops), cell(n, ops), outcomeClass(mark), esc(mark))
	}
	for _, n := range lastPerKey(newRows, Row.Key) {
		k := n.Key()
		seen[k] = true
		if o, ok := oldBy[k]; ok {
			row(k, &o, &n)
		} else {
			row(k, nil, &n)
		}
	}
	for _, o := range lastPerKey(oldRows, Row.Key) {
		if !seen[o.Key()] {
			row(o.Key(), &o, nil)
		}
	}
	p.f("</tbody></table></div>\n")
}
