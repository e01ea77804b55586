// Package udiff writes the unified diff of two texts, as diff -u does:
// plan -diff shows changed SQL and definitions with it, fmt -diff the
// formatting a spec would get.
package udiff

import (
	"fmt"
	"strings"
)

// unifiedContext is the number of unchanged lines shown around a change.
const unifiedContext = 3

// Unified returns the unified diff of two texts (line based, with
// unifiedContext lines of context), or "" when they are equal. The
// texts compared are SQL and short lists, so a longest common
// subsequence table is small enough.
func Unified(oldName, newName, a, b string) string {
	if a == b {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	ops := lineOps(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	for i := 0; i < len(ops); {
		// Find the next change and the hunk around it.
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(i-unifiedContext, 0)
		for start > 0 && ops[start-1].kind != ' ' {
			start--
		}
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			// A run of context: the hunk ends if it is longer than twice
			// the context or reaches the end.
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*unifiedContext {
				end = min(end+unifiedContext, len(ops))
				break
			}
			end = run
		}
		writeHunk(&out, ops[start:end])
		i = end
	}
	return out.String()
}

type lineOp struct {
	kind         byte // ' ', '-', '+'
	text         string
	aLine, bLine int // 1-based line numbers in a and b at this op
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// lineOps is the edit script from x to y by longest common subsequence.
func lineOps(x, y []string) []lineOp {
	n, m := len(x), len(y)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []lineOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			ops = append(ops, lineOp{kind: ' ', text: x[i]})
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, lineOp{kind: '+', text: y[j]})
			j++
		default:
			ops = append(ops, lineOp{kind: '-', text: x[i]})
			i++
		}
	}
	// Within a change, show removals before additions, as diff(1) does.
	for s := 0; s < len(ops); {
		if ops[s].kind == ' ' {
			s++
			continue
		}
		e := s
		for e < len(ops) && ops[e].kind != ' ' {
			e++
		}
		var del, add []lineOp
		for _, o := range ops[s:e] {
			if o.kind == '-' {
				del = append(del, o)
			} else {
				add = append(add, o)
			}
		}
		copy(ops[s:], append(del, add...))
		s = e
	}
	a, b := 1, 1
	for k := range ops {
		ops[k].aLine, ops[k].bLine = a, b
		if ops[k].kind != '+' {
			a++
		}
		if ops[k].kind != '-' {
			b++
		}
	}
	return ops
}

func writeHunk(w *strings.Builder, ops []lineOp) {
	aStart, bStart := ops[0].aLine, ops[0].bLine
	aCount, bCount := 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			aCount++
		}
		if o.kind != '-' {
			bCount++
		}
	}
	// diff(1) writes the line before an empty range.
	if aCount == 0 {
		aStart--
	}
	if bCount == 0 {
		bStart--
	}
	fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(aStart, aCount), hunkRange(bStart, bCount))
	for _, o := range ops {
		w.WriteByte(o.kind)
		w.WriteString(o.text)
		w.WriteByte('\n')
	}
}

func hunkRange(start, count int) string {
	if count == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}
