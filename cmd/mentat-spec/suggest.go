package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
)

// closest is the candidate nearest to name by edit distance, when it is
// near enough to be a slip (1, or 2 for names of four letters or more);
// "" otherwise.
func closest(name string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if best == "" || d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	if best == "" || bestD == 0 || bestD > 2 || bestD == 2 && len(name) < 4 {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, with a swap of two
// neighbours counting one (aply, apyl: apply).
func editDistance(a, b string) int {
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

// commandNames lists the commands in name order.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// unknownFlag is the flag name of the flag package's "flag provided but
// not defined: -name" error, or "".
func unknownFlag(err error) string {
	const prefix = "flag provided but not defined: -"
	if err == nil || !strings.HasPrefix(err.Error(), prefix) {
		return ""
	}
	return strings.TrimPrefix(err.Error(), prefix)
}

// suggestFlag prints "did you mean -x?" under the flag package's error
// for a misspelt flag of fs.
func suggestFlag(fs *flag.FlagSet, err error, w io.Writer) {
	name := unknownFlag(err)
	if name == "" {
		return
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if c := closest(name, names); c != "" {
		fmt.Fprintf(w, "Did you mean -%s?\n", c)
	}
}

// hintDiags adds what to do to diagnostics a user meets first: a -var
// list written bare (-var scales=xs), a -var of a misspelt variable.
func hintDiags(spec *config.Spec, diags hcl.Diagnostics) hcl.Diagnostics {
	var vars []string
	if spec != nil {
		for _, v := range spec.Variables {
			vars = append(vars, v.Name)
		}
	}
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		out[i] = d
		c := *d
		switch {
		case d.Summary == "Variables not allowed" && d.Subject != nil && strings.HasPrefix(d.Subject.Filename, "-var "):
			name := strings.TrimPrefix(d.Subject.Filename, "-var ")
			c.Detail = strings.TrimSpace(d.Detail + fmt.Sprintf(" A -var value of a list, map or number variable is HCL, where a bare word is a variable: "+
				"write the value as HCL and quote the whole argument for the shell, e.g. -var '%s=[\"xs\"]' for a list, -var '%s=\"xs\"' for a string.", name, name))
		case d.Summary == "Undeclared variable":
			name, ok := quotedAfter(d.Detail, "-var sets ")
			if !ok {
				continue
			}
			if m := closest(name, vars); m != "" {
				c.Detail = strings.TrimSpace(d.Detail + fmt.Sprintf(" Did you mean %q?", m))
			} else if len(vars) > 0 {
				c.Detail = strings.TrimSpace(d.Detail + " The spec declares: " + strings.Join(vars, ", ") + ".")
			}
		default:
			continue
		}
		out[i] = &c
	}
	return out
}

// quotedAfter returns the Go-quoted string that follows prefix in s.
func quotedAfter(s, prefix string) (string, bool) {
	i := strings.Index(s, prefix)
	if i < 0 {
		return "", false
	}
	rest := s[i+len(prefix):]
	if !strings.HasPrefix(rest, `"`) {
		return "", false
	}
	end := strings.Index(rest[1:], `"`)
	if end < 0 {
		return "", false
	}
	return rest[1 : end+1], true
}
