package resolve_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/checks"
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hclfunc"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all" // the scenario kinds the fixture uses
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/zclconf/go-cty/cty"
)

func loadResolveSpec(t *testing.T) *config.Spec {
	t.Helper()
	spec, diags := config.Load([]string{filepath.Join("testdata", "resolve", "spec.hcl")}, config.Options{Env: []string{}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return spec
}

func cell(t *testing.T, spec *config.Spec, scale, backend string) config.Cell {
	t.Helper()
	c := config.Cell{Scale: spec.Scale(scale), Backend: spec.Backend(backend)}
	if c.Scale == nil || c.Backend == nil {
		t.Fatalf("no cell %s/%s", scale, backend)
	}
	return c
}

func TestDatasetResolvePerScale(t *testing.T) {
	spec := loadResolveSpec(t)
	tests := []struct {
		scale         string
		users, issues int64
	}{
		{"xs", 10, 100},
		{"s", 40, 400},
	}
	for _, tt := range tests {
		t.Run(tt.scale, func(t *testing.T) {
			gen, diags := resolve.Dataset(spec.Dataset("d"), spec.ScaleContext(spec.Scale(tt.scale)))
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if gen.Name != "d" || gen.Seed != 7 || gen.TxSize != int(tt.users*5) {
				t.Errorf("name %q seed %d tx_size %d", gen.Name, gen.Seed, gen.TxSize)
			}
			wantEntities := []datagen.Entity{
				{Name: "user", Count: tt.users, Attrs: []datagen.Attr{
					{Ident: "user/email", ID: 1, Type: datagen.TypeString, Unique: true, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "u%d@example.com"}},
				}},
				{Name: "issue", Count: tt.issues, Attrs: []datagen.Attr{
					{Ident: "issue/state", ID: 2, Type: datagen.TypeKeyword, Index: true, Gen: datagen.Generator{Kind: datagen.GenWeighted, Choices: []string{"closed", "open"}, Weights: []float64{1, 3}}},
					{Ident: "issue/assignee", ID: 3, Type: datagen.TypeRef, Gen: datagen.Generator{Kind: datagen.GenZipf, Target: "user", S: 1.5}},
				}},
			}
			if !reflect.DeepEqual(gen.Entities, wantEntities) {
				t.Errorf("entities\n got %+v\nwant %+v", gen.Entities, wantEntities)
			}
			if want := []datagen.History{{Name: "close", Entity: "issue", Attr: "issue/state", Fraction: 0.25, Files: 2}}; !reflect.DeepEqual(gen.History, want) {
				t.Errorf("history %+v, want %+v", gen.History, want)
			}
			if want := []datagen.Mark{{Name: "t0", After: "initial"}}; !reflect.DeepEqual(gen.Marks, want) {
				t.Errorf("marks %+v, want %+v", gen.Marks, want)
			}
			wantTruth := []datagen.TruthDecl{
				{Name: "by_state", Kind: datagen.TruthCountBy, Attr: "issue/state"},
				{Name: "open", Kind: datagen.TruthCount, Entity: "issue", Where: []datagen.Filter{{Attr: "issue/state", Op: "ne", Value: "closed"}}},
			}
			if !reflect.DeepEqual(gen.Truth, wantTruth) {
				t.Errorf("truth\n got %+v\nwant %+v", gen.Truth, wantTruth)
			}
			// Finished: the marks have their transaction ids.
			if _, ok := gen.MarkTx("t0"); !ok {
				t.Error("mark t0 has no tx: the dataset was not finished")
			}
		})
	}
}

func TestBackendResolve(t *testing.T) {
	spec := loadResolveSpec(t)
	tests := []struct {
		scale, backend string
		want           resolve.CellBackend
	}{
		{"xs", "lite", resolve.CellBackend{
			Name: "lite", Driver: "sqlite",
			Options:  map[string]string{"path": "data/lite-xs.sqlite"},
			Settings: map[string]string{"journal_mode": "WAL", "cache_size": "-2000", "foreign_keys": "true"},
			Setup:    []string{"CREATE TABLE a (x)", "CREATE TABLE b (y)"},
			Analyze:  []string{"ANALYZE"},
			Load: resolve.Load{Tables: map[string]string{"attrs": "attrs", "text": "t", "int": "i", "real": "r"},
				Jobs: 3, BatchRows: 1000, Declared: true},
			ClientModel: resolve.ClientsGoroutine,
		}},
		{"s", "lite", resolve.CellBackend{
			Name: "lite", Driver: "sqlite",
			Options:  map[string]string{"path": "data/lite-s.sqlite"},
			Settings: map[string]string{"journal_mode": "WAL", "cache_size": "-2000", "foreign_keys": "true"},
			Setup:    []string{"CREATE TABLE a (x)", "CREATE TABLE b (y)"},
			Analyze:  []string{"ANALYZE"},
			Load: resolve.Load{Tables: map[string]string{"attrs": "attrs", "text": "t", "int": "i", "real": "r"},
				Jobs: 3, BatchRows: 4000, Declared: true},
			ClientModel: resolve.ClientsGoroutine,
		}},
		{"xs", "duck", resolve.CellBackend{
			Name: "duck", Driver: "duckdb", Options: map[string]string{}, Settings: map[string]string{},
			Load:        resolve.Load{Jobs: 1, BatchRows: 10000},
			ClientModel: resolve.ClientsGoroutine,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.scale+"/"+tt.backend, func(t *testing.T) {
			bc, diags := resolve.Backend(spec.Backend(tt.backend), spec.CellContext(cell(t, spec, tt.scale, tt.backend), cty.NilVal), "")
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if !reflect.DeepEqual(*bc, tt.want) {
				t.Errorf("\n got %+v\nwant %+v", *bc, tt.want)
			}
		})
	}
}

func TestQueryResolve(t *testing.T) {
	spec := loadResolveSpec(t)
	ctx := spec.CellContext(cell(t, spec, "xs", "lite"), cty.NilVal)
	tests := []struct {
		query, dialect string
		wantSQL        string // a prefix
		wantErr        string
	}{
		{"q", "duckdb", "SELECT 'duckdb'", ""},
		{"q", "sqlite", "SELECT 'default'", ""},
		{"q", "postgres", "SELECT 'default'", ""},
		{"plain", "duckdb", "SELECT state", ""},
		{"plain", "sqlite", "SELECT state", ""},
		{"postgres_only", "postgres", "SELECT 1", ""},
		{"postgres_only", "sqlite", "", "No SQL for this dialect"},
	}
	for _, tt := range tests {
		t.Run(tt.query+"/"+tt.dialect, func(t *testing.T) {
			rq, diags := resolve.Query(spec.Query(tt.query), ctx, tt.dialect)
			if tt.wantErr != "" {
				if len(diags) != 1 || diags[0].Summary != tt.wantErr {
					t.Fatalf("diagnostics %v, want %q", diags, tt.wantErr)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if !strings.HasPrefix(rq.SQL, tt.wantSQL) {
				t.Errorf("SQL %q, want %q...", rq.SQL, tt.wantSQL)
			}
		})
	}

	rq, diags := resolve.Query(spec.Query("q"), ctx, "sqlite")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if pg, ok := hclfunc.AsParamGen(rq.Params["email"]); !ok || pg != (params.Spec{Kind: params.Pick, Entity: "user", Attr: "user/email"}) {
		t.Errorf("email = %+v (%v)", pg, ok)
	}
	if pg, ok := hclfunc.AsParamGen(rq.Params["t"]); !ok || pg != (params.Spec{Kind: params.Mark, Mark: "t0"}) {
		t.Errorf("t = %+v (%v)", pg, ok)
	}
	for name, want := range map[string]any{"limit": int64(5), "ids": "[1,2]"} {
		got, err := resolve.ParamConst(rq.Params[name])
		if err != nil || got != want {
			t.Errorf("%s = %#v (%v), want %#v", name, got, err, want)
		}
	}
}

func TestParamConst(t *testing.T) {
	tests := []struct {
		v       cty.Value
		want    any
		wantErr bool
	}{
		{cty.StringVal("x"), "x", false},
		{cty.True, true, false},
		{cty.NumberIntVal(-3), int64(-3), false},
		{cty.NumberFloatVal(2.5), 2.5, false},
		{cty.NullVal(cty.String), nil, false},
		{cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.NumberIntVal(1)}), `["a",1]`, false},
		{cty.ObjectVal(map[string]cty.Value{"k": cty.StringVal("v")}), `{"k":"v"}`, false},
		{cty.CapsuleVal(hclfunc.GeneratorType, &datagen.Generator{}), nil, true},
	}
	for _, tt := range tests {
		got, err := resolve.ParamConst(tt.v)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParamConst(%#v) = %#v, %v; want %#v (error %v)", tt.v, got, err, tt.want, tt.wantErr)
		}
	}
}

// testTruth stands for the generator's answers: a list and an object.
var testTruth = cty.ObjectVal(map[string]cty.Value{
	"users": cty.TupleVal([]cty.Value{
		cty.ObjectVal(map[string]cty.Value{"email": cty.StringVal("u0@example.com")}),
		cty.ObjectVal(map[string]cty.Value{"email": cty.StringVal("u1@example.com")}),
		cty.ObjectVal(map[string]cty.Value{"email": cty.StringVal("u2@example.com")}),
	}),
	"by_state": cty.ObjectVal(map[string]cty.Value{"open": cty.NumberIntVal(75), "closed": cty.NumberIntVal(25)}),
	"open":     cty.NumberIntVal(75),
})

func checkBlock(t *testing.T, spec *config.Spec, scenario, name string) *config.CheckBlock {
	t.Helper()
	for _, sc := range spec.Scenarios {
		if sc.Name != scenario {
			continue
		}
		for _, ck := range sc.Checks {
			if ck.Name == name {
				return ck
			}
		}
	}
	t.Fatalf("no check %s.%s", scenario, name)
	return nil
}

func rows(n int64) *int64 { return &n }

func TestCheckResolve(t *testing.T) {
	spec := loadResolveSpec(t)
	ctx := spec.CellContext(cell(t, spec, "xs", "lite"), testTruth)
	type wantCase struct {
		key    string
		params map[string]cty.Value
		expect checks.Expect
	}
	tests := []struct {
		check string
		want  []wantCase
	}{
		{"list", []wantCase{
			{"0", map[string]cty.Value{"x": cty.StringVal("u0@example.com"), "i": cty.NumberIntVal(0)}, checks.Expect{Rows: rows(1)}},
			{"1", map[string]cty.Value{"x": cty.StringVal("u1@example.com"), "i": cty.NumberIntVal(1)}, checks.Expect{Rows: rows(2)}},
			{"2", map[string]cty.Value{"x": cty.StringVal("u2@example.com"), "i": cty.NumberIntVal(2)}, checks.Expect{Rows: rows(3)}},
		}},
		{"object", []wantCase{ // keys in sorted order
			{"closed", map[string]cty.Value{"x": cty.StringVal("closed")}, checks.Expect{Values: map[string]any{"state": "closed", "n": 25.0}}},
			{"open", map[string]cty.Value{"x": cty.StringVal("open")}, checks.Expect{Values: map[string]any{"state": "open", "n": 75.0}}},
		}},
		{"all", []wantCase{
			{"", map[string]cty.Value{"x": cty.StringVal("all")}, checks.Expect{
				Rows:   rows(75),
				Values: map[string]any{"backend": "lite"},
				Set:    &checks.Set{Columns: []string{"state", "n"}, Rows: [][]any{{"closed", 25.0}, {"open", 75.0}}},
				Map:    &checks.Map{Key: "state", Value: "n", Want: map[string]any{"closed": 25.0, "open": 75.0}},
				Sum:    &checks.Sum{Column: "n", Want: 100},
			}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.check, func(t *testing.T) {
			ck := checkBlock(t, spec, "s", tt.check)
			if ck.Query != "plain" {
				t.Errorf("query %q, want plain", ck.Query)
			}
			cases, diags := resolve.CheckCases(ck, ctx)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if len(cases) != len(tt.want) {
				t.Fatalf("%d cases, want %d", len(cases), len(tt.want))
			}
			for i, w := range tt.want {
				c := cases[i]
				if c.Key != w.key || c.Check != ck {
					t.Errorf("case %d: key %q, want %q", i, c.Key, w.key)
				}
				if len(c.Params) != len(w.params) {
					t.Errorf("case %d: params %#v, want %#v", i, c.Params, w.params)
				}
				for k, v := range w.params {
					if !c.Params[k].RawEquals(v) {
						t.Errorf("case %d: param %s = %#v, want %#v", i, k, c.Params[k], v)
					}
				}
				if !reflect.DeepEqual(c.Expect, w.expect) {
					t.Errorf("case %d: expect\n got %s\nwant %s", i, expectText(c.Expect), expectText(w.expect))
				}
			}
		})
	}
}

func expectText(e checks.Expect) string {
	rows := "nil"
	if e.Rows != nil {
		rows = fmt.Sprint(*e.Rows)
	}
	return fmt.Sprintf("rows=%s values=%v set=%+v map=%+v sum=%+v", rows, e.Values, e.Set, e.Map, e.Sum)
}

func TestCheckResolveErrors(t *testing.T) {
	spec := loadResolveSpec(t)
	ctx := spec.CellContext(cell(t, spec, "xs", "duck"), testTruth)
	tests := []struct{ check, summary string }{
		{"empty", "Empty for_each"},
		{"scalar", "Invalid for_each"},
		{"null", "Invalid for_each"},
		{"set_width", "Invalid expect_set"},
		{"extra_field", "Unexpected field"},
	}
	for _, tt := range tests {
		t.Run(tt.check, func(t *testing.T) {
			ck := checkBlock(t, spec, "bad", tt.check)
			_, diags := resolve.CheckCases(ck, ctx)
			if len(diags) != 1 || diags[0].Summary != tt.summary {
				t.Fatalf("diagnostics %v, want one %q", diags, tt.summary)
			}
			if diags[0].Subject == nil || diags[0].Subject.Start.Line <= ck.DeclRange.Start.Line {
				t.Errorf("subject %v is not inside the check at line %d", diags[0].Subject, ck.DeclRange.Start.Line)
			}
		})
	}
}

// TestCheckResolveUnknownTruth: before the truth is computed (validate,
// plan) a for_each over it resolves to one placeholder case.
func TestCheckResolveUnknownTruth(t *testing.T) {
	spec := loadResolveSpec(t)
	unknown := cty.ObjectVal(map[string]cty.Value{"users": cty.DynamicVal, "by_state": cty.DynamicVal, "open": cty.DynamicVal})
	ctx := spec.CellContext(cell(t, spec, "xs", "lite"), unknown)
	for _, name := range []string{"list", "object", "all"} {
		cases, diags := resolve.CheckCases(checkBlock(t, spec, "s", name), ctx)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", name, diags.Error())
		}
		if len(cases) != 1 {
			t.Errorf("%s: %d cases, want 1 placeholder", name, len(cases))
		}
	}
}
