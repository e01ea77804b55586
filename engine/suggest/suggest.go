// Package suggest finds the name a user most likely meant: a misspelt
// command, flag, variable, operation or function gets a "did you mean"
// instead of a list of every name.
package suggest

import "strings"

// Closest is the candidate nearest to name by edit distance, when it is
// near enough to be a slip (1, or 2 for names of four letters or more);
// "" otherwise. Case is ignored; an exact match is no suggestion.
func Closest(name string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := EditDistance(strings.ToLower(name), strings.ToLower(c))
		if best == "" || d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	if best == "" || bestD == 0 || bestD > 2 || bestD == 2 && len(name) < 4 {
		return ""
	}
	return best
}

// DidYouMean is ` Did you mean "x"?` for the closest candidate, or "".
func DidYouMean(name string, candidates []string) string {
	if c := Closest(name, candidates); c != "" {
		return ` Did you mean "` + c + `"?`
	}
	return ""
}

// Hint is DidYouMean when a candidate is near, else ` The <plural> are:
// a, b.` naming them all.
func Hint(name string, candidates []string, plural string) string {
	if m := DidYouMean(name, candidates); m != "" {
		return m
	}
	return " The " + plural + " are: " + strings.Join(candidates, ", ") + "."
}

// EditDistance is the Levenshtein distance of a and b, with a swap of two
// neighbours counting one (aply, apyl: apply).
func EditDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
