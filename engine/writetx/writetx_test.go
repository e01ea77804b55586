package writetx

import (
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
)

func TestParamName(t *testing.T) {
	for in, want := range map[string]string{"ycsb/field0": "ycsb_field0", "issue/state": "issue_state", "a-b.c": "a_b_c", "plain_1": "plain_1"} {
		if got := ParamName(in); got != want {
			t.Errorf("ParamName(%q) = %q, want %q", in, got, want)
		}
	}
	p := InsertParams([]string{"ycsb/field0", "ycsb/tags"})
	if p.Text != "an insert binds :e, :tx, :k, :ycsb_field0, :ycsb_tags" || !p.Allowed["ycsb_tags"] || p.Allowed["v"] {
		t.Errorf("InsertParams = %+v", p)
	}
	if !UpdateParams.Allowed["v"] || UpdateParams.Allowed["ycsb_field0"] {
		t.Errorf("UpdateParams = %+v", UpdateParams)
	}
}

// Arg binds an update's fields by name, an insert's attribute by its
// field, a cardinality-many one as a JSON array, and nothing else.
func TestArg(t *testing.T) {
	str := func(s string) datagen.Value { return datagen.Value{Type: datagen.TypeString, Str: s} }
	op := writes.Op{K: 3, E: 42, A: 7, Value: str("open"), Tx: 1000, Insert: true, Values: []writes.AttrValues{
		{Attr: "x/name", Values: []datagen.Value{str("n1")}},
		{Attr: "x/tags", Values: []datagen.Value{str("a"), str("b")}},
		{Attr: "x/none"},
	}}
	fields := map[string]Field{"x_name": {Index: 0}, "x_tags": {Index: 1, Many: true}, "x_none": {Index: 2}}
	for _, tc := range []struct {
		name string
		want any
	}{
		{"e", int64(42)}, {"a", int64(7)}, {"v", "open"}, {"tx", int64(1000)}, {"k", int64(3)},
		{"x_name", "n1"}, {"x_tags", `["a","b"]`}, {"x_none", nil}, {"unknown", nil},
	} {
		if got := Arg(op, fields, tc.name); got != tc.want {
			t.Errorf("Arg(%q) = %#v, want %#v", tc.name, got, tc.want)
		}
	}
}
