package kind

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// The read and write blocks kinds share.
const (
	ReadBlock  = "read"
	WriteBlock = "write"
)

// StreamBlocks are the read and write blocks of a scenario body.
var StreamBlocks = []hcl.BlockHeaderSchema{{Type: ReadBlock}, {Type: WriteBlock}}

// StreamBlock is a decoded read or write block: clients each calling a
// mix of queries. Extra holds the attributes a kind adds to the block.
type StreamBlock struct {
	Op  string
	Mix []string
	// Ops, when set, are the stream's operations (Mix is then empty).
	Ops     []Operation
	Clients int // 0: the scenario's client count
	Range   hcl.Range
	Extra   map[string]*hcl.Attribute
}

// DecodeStreams decodes the read and write blocks of content: `query =
// query.NAME`, `mix = [...]` or operation blocks, and `clients` (a write
// block has one writer unless it says otherwise, as the seed suite). extra
// names attributes the kind accepts besides; they come back unevaluated
// in Extra.
func DecodeStreams(content *hcl.BodyContent, ctx *hcl.EvalContext, extra ...string) ([]StreamBlock, hcl.Diagnostics) {
	schema := &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "query"}, {Name: "mix"}, {Name: "clients"}, {Name: "writers"}},
		Blocks: []hcl.BlockHeaderSchema{{Type: OperationBlock, LabelNames: []string{"name"}}}}
	opNames := map[string]hcl.Range{}
	for _, n := range extra {
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: n})
	}
	var out []StreamBlock
	var diags hcl.Diagnostics
	seen := map[string]hcl.Range{}
	for _, blk := range content.Blocks {
		if blk.Type != ReadBlock && blk.Type != WriteBlock {
			continue
		}
		if prev, ok := seen[blk.Type]; ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate " + blk.Type + " block",
				Detail: fmt.Sprintf("A %s block was already declared at %s; a scenario has at most one of each.", blk.Type, prev), Subject: blk.DefRange.Ptr()})
			continue
		}
		seen[blk.Type] = blk.DefRange
		c, d := blk.Body.Content(schema)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		st := StreamBlock{Op: blk.Type, Range: blk.DefRange, Extra: map[string]*hcl.Attribute{}}
		q, hasQ := c.Attributes["query"]
		m, hasM := c.Attributes["mix"]
		hasOps := len(c.Blocks) > 0
		switch {
		case hasOps && (hasQ || hasM):
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid " + blk.Type + " block",
				Detail: "A stream is a query, a mix or operation blocks: operations name their own queries, so drop query and mix here.", Subject: blk.DefRange.Ptr()})
			continue
		case hasOps:
			ops, d := decodeOperations(c.Blocks, ctx, opNames)
			diags = append(diags, d...)
			st.Ops = ops
		case hasQ == hasM:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid " + blk.Type + " block",
				Detail: "Set exactly one of query = query.NAME, mix = [query.A, query.B, ...] and operation \"NAME\" { weight = N query = query.NAME } blocks.", Subject: blk.DefRange.Ptr()})
			continue
		case hasQ:
			n, d := String(q.Expr, ctx, "query")
			diags = append(diags, d...)
			st.Mix = []string{n}
		default:
			l, d := Strings(m.Expr, ctx, "mix")
			diags = append(diags, d...)
			st.Mix = l
		}
		if a, ok := c.Attributes["clients"]; ok {
			n, d := Int(a.Expr, ctx, "clients", 1)
			diags = append(diags, d...)
			st.Clients = n
		} else if st.Op != ReadBlock {
			st.Clients = 1
		}
		if a, ok := c.Attributes["writers"]; ok && !isNull(a.Expr, ctx) {
			n, d := Int(a.Expr, ctx, "writers", 1)
			diags = append(diags, d...)
			if !kindOpsWrite(st.Ops) && !d.HasErrors() {
				diags = append(diags, AttrError(a.Expr, "writers without writes", "writers limits how many clients of a stream of operations write at once; this stream has no write operation."))
			}
			for i := range st.Ops {
				st.Ops[i].Writers, st.Ops[i].WritersRange = n, a.Expr.Range()
			}
		}
		for _, n := range extra {
			if a, ok := c.Attributes[n]; ok {
				st.Extra[n] = a
			}
		}
		out = append(out, st)
	}
	return out, diags
}

func kindOpsWrite(ops []Operation) bool { return OpsWrite(ops) }

// isNull reports whether expr evaluates to null: an attribute set to a
// null variable counts as not set.
func isNull(expr hcl.Expression, ctx *hcl.EvalContext) bool {
	v, diags := expr.Value(ctx)
	return !diags.HasErrors() && v.IsNull()
}
