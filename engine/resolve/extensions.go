package resolve

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
)

// extensionKeys are the keys an object item of `extensions` accepts.
var extensionKeys = []string{"path", "name", "entry_point", "schema", "version"}

// resolveSession reads what makes a backend's sessions the product:
// `extensions`, `allow_unsigned_extensions`, `session_setup` and the
// `explain` statement.
func resolveSession(b *config.BackendBlock, ctx *hcl.EvalContext, bc *CellBackend) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if e, ok := b.Attrs["extensions"]; ok {
		l, d := extensionList(e, ctx)
		diags = append(diags, d...)
		bc.Extensions = l
	}
	if e, ok := b.Attrs["allow_unsigned_extensions"]; ok {
		v, d := hcleval.Bool(e, ctx, "allow_unsigned_extensions")
		diags = append(diags, d...)
		bc.AllowUnsignedExtensions = v
	}
	if e, ok := b.Attrs["session_setup"]; ok {
		l, d := hcleval.StringList(e, ctx, "session_setup")
		diags = append(diags, d...)
		bc.SessionSetup = l
	}
	if e, ok := b.Attrs["explain"]; ok {
		s, d := hcleval.String(e, ctx, "explain")
		diags = append(diags, d...)
		if !d.HasErrors() {
			// The statement must bind :q, the query's text, which is what
			// it explains.
			b, err := sqltext.Bind(s, func(int) string { return "?" })
			switch {
			case err != nil:
				diags = append(diags, hcleval.AttrError(e, "Invalid explain statement", err.Error()+"."))
			case !slices.Contains(b.Names, ExplainQueryParam):
				diags = append(diags, hcleval.AttrError(e, "Invalid explain statement",
					"The explain statement must bind :"+ExplainQueryParam+", the text of the query it explains (for example \"SELECT mentat_explain(:q)\")."))
			}
			bc.Explain = s
		}
	}
	return diags
}

// ExplainQueryParam is the parameter of a backend's explain statement
// bound to the query's text.
const ExplainQueryParam = "q"

// extensionList reads `extensions`: each item a string (a file path when
// it holds a "/", else a name) or an object of extensionKeys with a path
// or a name.
func extensionList(e hcl.Expression, ctx *hcl.EvalContext) ([]drivers.Extension, hcl.Diagnostics) {
	v, diags := e.Value(ctx)
	if diags.HasErrors() || !v.IsWhollyKnown() || v.IsNull() {
		return nil, diags
	}
	bad := func(detail string) hcl.Diagnostics {
		return append(diags, hcleval.AttrError(e, "Invalid extensions", detail))
	}
	t := v.Type()
	if !t.IsListType() && !t.IsTupleType() && !t.IsSetType() {
		return nil, bad("extensions must be a list: each item a path, a name, or an object {path|name, entry_point, schema, version}.")
	}
	var out []drivers.Extension
	i := 0
	for it := v.ElementIterator(); it.Next(); i++ {
		_, item := it.Element()
		var x drivers.Extension
		switch {
		case item.IsNull():
			return nil, bad(fmt.Sprintf("extensions[%d] is null.", i))
		case item.Type() == cty.String:
			s := item.AsString()
			if strings.ContainsRune(s, '/') {
				x.Path = s
			} else {
				x.Name = s
			}
		case item.Type().IsObjectType() || item.Type().IsMapType():
			fields := map[string]*string{"path": &x.Path, "name": &x.Name, "entry_point": &x.EntryPoint, "schema": &x.Schema, "version": &x.Version}
			var keys []string
			for k := range item.AsValueMap() {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				dst, ok := fields[k]
				if !ok {
					return nil, bad(fmt.Sprintf("extensions[%d]: unknown key %q (the keys are %s).", i, k, strings.Join(extensionKeys, ", ")))
				}
				var fv cty.Value
				if item.Type().IsMapType() {
					fv = item.Index(cty.StringVal(k))
				} else {
					fv = item.GetAttr(k)
				}
				if fv.IsNull() {
					continue
				}
				s, err := hcleval.Primitive(fv)
				if err != nil {
					return nil, bad(fmt.Sprintf("extensions[%d].%s: %s.", i, k, err))
				}
				*dst = s
			}
		default:
			return nil, bad(fmt.Sprintf("extensions[%d] is %s: each item is a path, a name, or an object {path|name, entry_point, schema, version}.", i, item.Type().FriendlyName()))
		}
		switch {
		case x.Path == "" && x.Name == "":
			return nil, bad(fmt.Sprintf("extensions[%d] names neither a path nor a name.", i))
		case x.Path != "" && x.Name != "":
			return nil, bad(fmt.Sprintf("extensions[%d] names both a path and a name: an extension is one or the other.", i))
		}
		out = append(out, x)
	}
	return out, diags
}
