package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/suggest"
)

// closest is the candidate nearest to name by edit distance, when it is
// near enough to be a slip; "" otherwise (engine/suggest).
func closest(name string, candidates []string) string { return suggest.Closest(name, candidates) }

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

// hintDiags adds what to do to diagnostics a user meets first: a -var of
// a misspelt variable. (A -var list written bare, -var scales=xs, gets its
// hint where it is parsed, with the words written.)
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
