package plandiff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

var opSign = map[string]string{Added: "+", Removed: "-", Changed: "~"}

func (c Change) title() string {
	where := " on " + strings.Join(c.Cells, ", ")
	if c.What == WhatMatrix {
		where = ""
	} else if c.What == WhatDataset {
		where = " at scale " + strings.Join(c.Cells, ", ")
	}
	return fmt.Sprintf("%s %s %s%s", c.What, c.Name, c.Op, where)
}

func (c Change) estimateText() string {
	if len(c.Estimates) == 0 {
		return ""
	}
	var parts []string
	for _, e := range c.Estimates {
		var s string
		switch c.Op {
		case Added:
			s = e.New.String()
		case Removed:
			s = e.Old.String()
		default:
			s = e.Old.String() + " -> " + e.New.String()
		}
		if len(c.Estimates) > 1 {
			s = e.Cell + " " + s
		}
		parts = append(parts, s)
	}
	return "estimated " + strings.Join(parts, "; ")
}

func (r *Diff) summary() string {
	n := map[string]int{}
	for _, c := range r.Changes {
		n[c.Op]++
	}
	return fmt.Sprintf("%d change(s): %d added, %d removed, %d changed", len(r.Changes), n[Added], n[Removed], n[Changed])
}

func (r *Diff) totals() string {
	if r.OldEst == r.NewEst && r.OldPoints == r.NewPoints {
		return fmt.Sprintf("Estimated duration: %s, unchanged; points: %d", r.NewEst, r.NewPoints)
	}
	return fmt.Sprintf("Estimated duration: %s -> %s; points: %d -> %d", r.OldEst, r.NewEst, r.OldPoints, r.NewPoints)
}

// WriteText prints the report for a terminal.
func (r *Diff) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Plan diff: %s -> %s\n", r.Old, r.New)
	if r.Empty() {
		b.WriteString("No changes: both revisions resolve to the same plan.\n")
	}
	for _, c := range r.Changes {
		fmt.Fprintf(&b, "\n%s %s\n", opSign[c.Op], c.title())
		if e := c.estimateText(); e != "" {
			fmt.Fprintf(&b, "    %s\n", e)
		}
		for _, d := range c.Details {
			if d.Diff != "" {
				fmt.Fprintf(&b, "    %s:\n", d.Field)
				for _, l := range strings.Split(strings.TrimSuffix(d.Diff, "\n"), "\n") {
					fmt.Fprintf(&b, "      %s\n", l)
				}
				continue
			}
			fmt.Fprintf(&b, "    %s: %s\n", d.Field, oldNew(d))
		}
	}
	fmt.Fprintf(&b, "\n%s\n", r.totals())
	if !r.Empty() {
		fmt.Fprintf(&b, "%s\n", r.summary())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func oldNew(d Detail) string {
	switch {
	case d.Old == "":
		return d.New
	case d.New == "":
		return d.Old + " (removed)"
	}
	return d.Old + " -> " + d.New
}

// WriteMarkdown prints the report as a pull-request comment.
func (r *Diff) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Spec plan diff: `%s` -> `%s`\n\n", r.Old, r.New)
	if r.Empty() {
		b.WriteString("No changes: both revisions resolve to the same plan.\n\n")
	} else {
		fmt.Fprintf(&b, "%s.\n\n", r.summary())
	}
	for _, c := range r.Changes {
		fmt.Fprintf(&b, "#### %s %s\n\n", opSign[c.Op], mdEscape(c.title()))
		if e := c.estimateText(); e != "" {
			fmt.Fprintf(&b, "- %s\n", mdEscape(e))
		}
		var diffs []Detail
		for _, d := range c.Details {
			if d.Diff != "" {
				diffs = append(diffs, d)
				continue
			}
			fmt.Fprintf(&b, "- %s: `%s`\n", mdEscape(d.Field), mdCode(oldNew(d)))
		}
		for _, d := range diffs {
			fmt.Fprintf(&b, "- %s:\n\n```diff\n%s```\n", mdEscape(d.Field), fence(d.Diff))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s\n", mdEscape(r.totals()))
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints the report as indented JSON.
func (r *Diff) WriteJSON(w io.Writer) error {
	out := *r
	if out.Changes == nil {
		out.Changes = []Change{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func mdEscape(s string) string {
	r := strings.NewReplacer("*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "|", `\|`)
	if strings.Contains(s, " -> ") {
		parts := strings.Split(s, " -> ")
		for i := range parts {
			parts[i] = r.Replace(parts[i])
		}
		return strings.Join(parts, " → ")
	}
	return r.Replace(s)
}

func mdCode(s string) string { return strings.ReplaceAll(s, "`", "'") }

// fence keeps a diff from closing its code block early.
func fence(s string) string {
	s = strings.ReplaceAll(s, "```", "` ` `")
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}
