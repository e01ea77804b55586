package plan

import (
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// CheckSource is a check as the spec wrote it, for comparing two
// revisions of a spec before any truth exists: its query and each
// attribute's expression as canonical source (comments and layout
// dropped, so reformatting a spec changes nothing).
type CheckSource struct {
	Name  string
	Query string
	Attrs map[string]string
}

// CheckSources returns the scenario's checks as written.
func (c *Cell) CheckSources(s *Scenario) []CheckSource {
	if s.Checker == nil {
		return nil
	}
	var files map[string][]byte
	if c.Plan != nil {
		files = c.Plan.Files
	}
	var out []CheckSource
	for _, ck := range s.Checker.Checks {
		if ck.From != "" {
			continue // another scenario's
		}
		cs := CheckSource{Name: ck.Name, Query: ck.Query, Attrs: map[string]string{}}
		for name, a := range ck.Attrs {
			if name == "query" {
				continue
			}
			cs.Attrs[name] = exprSource(files, a.Expr)
		}
		out = append(out, cs)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// exprSource is an expression's source text with comments dropped and
// any run of whitespace or newlines between tokens as one space;
// JSON-form text only has its whitespace collapsed.
func exprSource(files map[string][]byte, e hcl.Expression) string {
	rng := e.Range()
	f, ok := files[rng.Filename]
	if !ok || rng.End.Byte > len(f) || rng.Start.Byte > rng.End.Byte {
		return ""
	}
	src := f[rng.Start.Byte:rng.End.Byte]
	if _, native := hcl.UnwrapExpression(e).(hclsyntax.Expression); !native {
		return strings.Join(strings.Fields(string(src)), " ")
	}
	toks, diags := hclsyntax.LexExpression(src, rng.Filename, rng.Start)
	if diags.HasErrors() {
		return strings.Join(strings.Fields(string(src)), " ")
	}
	var b strings.Builder
	end := -1 // byte offset where the previous kept token ended
	for _, t := range toks {
		switch t.Type {
		case hclsyntax.TokenComment, hclsyntax.TokenNewline, hclsyntax.TokenEOF:
			continue
		}
		if end >= 0 && t.Range.Start.Byte > end {
			b.WriteByte(' ')
		}
		b.Write(t.Bytes)
		end = t.Range.End.Byte
	}
	return b.String()
}

// SensitiveValues returns the string values of the spec's sensitive
// variables, so a description of the plan can redact options built
// from them.
func (p *Plan) SensitiveValues() []string { return append([]string(nil), p.Secrets...) }
