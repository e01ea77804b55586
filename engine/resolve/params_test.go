package resolve_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/zclconf/go-cty/cty"
)

// evalFn evaluates src with the spec language's functions.
func evalFn(t *testing.T, src string) (cty.Value, hcl.Diagnostics) {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return expr.Value((&config.Spec{}).TopContext())
}

// TestChooserParams: what each key chooser, pick() over one and a
// uniform() parameter become, and the mistakes refused at the call.
func TestChooserParams(t *testing.T) {
	gen := func(g datagen.Generator) *datagen.Generator { return &g }
	tests := []struct {
		src     string
		want    params.Spec
		wantErr string
	}{
		{src: `pick("user")`, want: params.Spec{Kind: params.Pick, Entity: "user"}},
		{src: `pick("user", "user/email")`, want: params.Spec{Kind: params.Pick, Entity: "user", Attr: "user/email"}},
		{src: `pick(zipf("user", 0.99), "user/email")`, want: params.Spec{Kind: params.Pick, Entity: "user", Attr: "user/email",
			Chooser: gen(datagen.Generator{Kind: datagen.GenZipf, Target: "user", S: 0.99})}},
		{src: `pick(ref("item"))`, want: params.Spec{Kind: params.Pick, Entity: "item", Chooser: gen(datagen.Generator{Kind: datagen.GenRef, Target: "item"})}},
		{src: `pick(scrambled_zipf("user"))`, want: params.Spec{Kind: params.Pick, Entity: "user",
			Chooser: gen(datagen.Generator{Kind: datagen.GenScrambledZipf, Target: "user", S: 0.99})}},
		{src: `pick(latest("user", 1.2), "user/email")`, want: params.Spec{Kind: params.Pick, Entity: "user", Attr: "user/email",
			Chooser: gen(datagen.Generator{Kind: datagen.GenLatest, Target: "user", S: 1.2})}},
		{src: `pick(hotspot("user", 0.2, 0.8))`, want: params.Spec{Kind: params.Pick, Entity: "user",
			Chooser: gen(datagen.Generator{Kind: datagen.GenHotspot, Target: "user", HotData: 0.2, HotOp: 0.8})}},
		{src: `uniform(1, 100)`, want: params.Spec{Kind: params.Range, Min: 1, Max: 100}},
		{src: `pick(uniform(1, 2))`, wantErr: "not uniform()"},
		{src: `pick(random_bytes(3))`, wantErr: "not random_bytes()"},
		{src: `pick(["user"])`, wantErr: "not tuple"},
		{src: `latest("user", 0)`, wantErr: "exponent must be positive"},
		{src: `scrambled_zipf("user", 1, 2)`, wantErr: "at most one exponent"},
		{src: `hotspot("user", 0.5, 2)`, wantErr: "hot_op_fraction must be in [0, 1]"},
		{src: `random_bytes(0)`, wantErr: "length must be in"},
		{src: `zipf("user", 0.99)`, wantErr: "draw an entity with pick(zipf(\"user\", 0.99))"},
		{src: `seq("a%d")`, wantErr: "only uniform(min, max) is a parameter"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			v, diags := evalFn(t, tt.src)
			var got params.Spec
			var err error
			if !diags.HasErrors() {
				got, err = resolve.ParamSpec(v)
			}
			msg := diags.Error()
			if err != nil {
				msg = err.Error()
			}
			if tt.wantErr != "" {
				if !strings.Contains(msg, tt.wantErr) || (!diags.HasErrors() && err == nil) {
					t.Fatalf("got %v (%q), want an error mentioning %q", got, msg, tt.wantErr)
				}
				return
			}
			if diags.HasErrors() || err != nil {
				t.Fatalf("error %s", msg)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v (%s), want %+v (%s)", got, got, tt.want, tt.want)
			}
		})
	}
}
