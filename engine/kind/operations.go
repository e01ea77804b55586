package kind

import (
	"context"
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// OperationBlock is a named operation of a stream: `operation "NAME" {
// weight = N ... }` inside a read or write block.
const OperationBlock = "operation"

// Operation is one operation of a stream of operations. Each call of a
// client draws one from the stream's operations, in proportion to their
// weights, from the client's seeded random stream; each has its own row
// (op = Name).
type Operation struct {
	Name   string
	Weight float64
	// Query is the query a read runs, or the statements of a write, run
	// as one transaction.
	Query string
	// Write names the dataset's write generator of a write ("" for a
	// read): write k of it is a pure function of (seed, k).
	Write string
	// Read, for a read-modify-write, is a query run first inside the
	// write's transaction with the write's parameters.
	Read string
	// MaxTries is how often a write failing on contention (busy,
	// serialization, deadlock, conflict) is tried.
	MaxTries int
	// Writers is the stream's `writers`: how many of its clients may
	// write at once (0: each on its own session, as far as the database
	// allows).
	Writers int
	Range   hcl.Range `json:"-"`
	// WriteRange is the `write =` attribute's value, where a mistake in
	// the generator's name is reported.
	WriteRange hcl.Range `json:"-"`
	// WritersRange is the stream's `writers =` value, where writers above
	// the stream's clients are refused.
	WritersRange hcl.Range `json:"-"`
}

// IsWrite reports whether the operation writes.
func (o Operation) IsWrite() bool { return o.Write != "" }

// Kind says what the operation is, for plan: read, write or
// read_modify_write.
func (o Operation) Kind() string {
	switch {
	case o.Read != "":
		return "read_modify_write"
	case o.Write != "":
		return "write"
	}
	return "read"
}

var operationSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "weight", Required: true}, {Name: "query", Required: true}, {Name: "write"}, {Name: "read"}, {Name: "max_tries"},
}}

// decodeOperations decodes a stream block's operation blocks. names holds
// the operation names seen in the scenario so far.
func decodeOperations(blocks hcl.Blocks, ctx *hcl.EvalContext, names map[string]hcl.Range) ([]Operation, hcl.Diagnostics) {
	var out []Operation
	var diags hcl.Diagnostics
	for _, blk := range blocks {
		if blk.Type != OperationBlock {
			continue
		}
		name := blk.Labels[0]
		switch {
		case name == measure.OpTotal || name == "":
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid operation name",
				Detail: fmt.Sprintf("%q is the name of a stream's total row; name the operation otherwise.", name), Subject: blk.LabelRanges[0].Ptr()})
			continue
		case names[name] != hcl.Range{}:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate operation",
				Detail: fmt.Sprintf("An operation %q was already declared at %s; each has its own row, so names are unique in a scenario.", name, names[name]), Subject: blk.LabelRanges[0].Ptr()})
			continue
		}
		names[name] = blk.DefRange
		c, d := blk.Body.Content(operationSchema)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		op := Operation{Name: name, Range: blk.DefRange, MaxTries: 1}
		op.Weight, d = weight(c.Attributes["weight"].Expr, ctx)
		diags = append(diags, d...)
		op.Query, d = String(c.Attributes["query"].Expr, ctx, "query")
		diags = append(diags, d...)
		if a, ok := c.Attributes["write"]; ok {
			op.Write, d = String(a.Expr, ctx, "write")
			op.WriteRange = a.Expr.Range()
			diags = append(diags, d...)
		}
		if a, ok := c.Attributes["read"]; ok {
			op.Read, d = String(a.Expr, ctx, "read")
			diags = append(diags, d...)
			if op.Write == "" && !d.HasErrors() {
				diags = append(diags, AttrError(a.Expr, "read without write", `read is the first query of a read-modify-write: set write = "GENERATOR" too.`))
			}
		}
		if a, ok := c.Attributes["max_tries"]; ok {
			op.MaxTries, d = Int(a.Expr, ctx, "max_tries", 1)
			diags = append(diags, d...)
			if op.Write == "" && !d.HasErrors() {
				diags = append(diags, AttrError(a.Expr, "max_tries of a read", "max_tries retries a write failing on contention; a read's failures are counted, not retried."))
			}
		}
		out = append(out, op)
	}
	var sum float64
	for _, o := range out {
		sum += o.Weight
	}
	if math.IsInf(sum, 0) && len(out) > 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid weight",
			Detail:  fmt.Sprintf("The weights of the stream's operations sum past the largest number (%g): only their ratios count, so write them smaller (50 and 50, not 1e308 and 1e308).", math.MaxFloat64),
			Subject: out[len(out)-1].Range.Ptr()})
	}
	return out, diags
}

// weight evaluates an operation's weight: a positive finite number,
// whatever the mistake the same rule and the same message.
func weight(expr hcl.Expression, ctx *hcl.EvalContext) (float64, hcl.Diagnostics) {
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return 0, diags
	}
	v, err := convert.Convert(v, cty.Number)
	if err != nil || v.IsNull() {
		return 0, hcl.Diagnostics{AttrError(expr, "Incorrect attribute value type", "weight must be a number.")}
	}
	if !v.IsKnown() {
		return 0, hcl.Diagnostics{AttrError(expr, "Invalid weight", "weight must be known from the spec alone: a scenario's attributes cannot read scale.* (nor a local that does).")}
	}
	f, _ := v.AsBigFloat().Float64()
	if !(f > 0) || math.IsInf(f, 0) {
		return 0, hcl.Diagnostics{AttrError(expr, "Invalid weight",
			fmt.Sprintf("An operation's weight is a positive finite number (its share of the stream's calls is its weight over the sum of the weights), got %v.", f))}
	}
	return f, nil
}

// Weights returns the operations' cumulative weights, normalised to end
// at 1: operation i is drawn when a uniform u in [0, 1) is below cum[i]
// and not below cum[i-1].
func Weights(ops []Operation) []float64 {
	cum := make([]float64, len(ops))
	var sum float64
	for _, o := range ops {
		sum += o.Weight
	}
	var acc float64
	for i, o := range ops {
		acc += o.Weight
		cum[i] = acc / sum
	}
	if len(cum) > 0 {
		cum[len(cum)-1] = 1
	}
	return cum
}

// OperationNames lists the operations' names, in order.
func OperationNames(ops []Operation) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = o.Name
	}
	return out
}

// OpEnv is implemented by the Env of a runner that runs streams of
// operations; a kind asserts it when a stream has operations.
type OpEnv interface {
	Env
	// OpenOps opens one client of a stream of operations: its session,
	// the statements of every operation prepared, its own random stream
	// for drawing operations and parameters from (seed, index).
	OpenOps(ctx context.Context, ops []Operation, index int, seed uint64) (OpClient, error)
}

// OpClient is one client of a stream of operations.
type OpClient interface {
	// Call draws the next operation, runs it and says which it was (an
	// index into the stream's operations).
	Call(ctx context.Context) (int, error)
	Close()
}

// Operationer is implemented by definitions whose streams may hold
// operations: validation reads their names, weights, queries and write
// generators from it.
type Operationer interface {
	Operations() []Operation
}

// CheckWriters refuses a stream whose writers exceed the most clients it
// runs with: no more clients than that can write at once, so the number
// asked would never be reached and the plan would promise what the run
// cannot do. Each kind calls it with the stream's largest client count.
func CheckWriters(ops []Operation, clients int) hcl.Diagnostics {
	for _, o := range ops {
		if o.Writers > clients {
			return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "More writers than clients",
				Detail:  fmt.Sprintf("writers = %d, but the stream runs at most %d client(s): at most that many can write at once. Set writers to at most %d, or run more clients.", o.Writers, clients, clients),
				Subject: o.WritersRange.Ptr()}}
		}
	}
	return nil
}
