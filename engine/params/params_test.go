package params

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
)

func dataset(t *testing.T) *datagen.Dataset {
	t.Helper()
	ds := &datagen.Dataset{
		Name: "d", Seed: 3, TxSize: 10,
		Entities: []datagen.Entity{{Name: "user", Count: 30, Attrs: []datagen.Attr{
			{Ident: "user/email", Type: datagen.TypeString, Unique: true, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "u%d@x"}},
			{Ident: "user/age", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenUniformInt, Min: 20, Max: 30}},
		}}},
		Marks: []datagen.Mark{{Name: "t_end", After: "initial"}},
	}
	if err := ds.Finish(); err != nil {
		t.Fatal(err)
	}
	return ds
}

func constant(v any) Spec { return Spec{Kind: Const, Value: v} }

func TestBinder(t *testing.T) {
	ds := dataset(t)
	base, _ := ds.EntityID("user", 0)
	end, _ := ds.MarkTx("t_end")
	tests := []struct {
		name  string
		value Spec
		check func(t *testing.T, v any)
	}{
		{"string constant", constant("x"), func(t *testing.T, v any) {
			if v != "x" {
				t.Errorf("got %v", v)
			}
		}},
		{"whole number constant", constant(int64(4)), func(t *testing.T, v any) {
			if v != int64(4) {
				t.Errorf("got %#v", v)
			}
		}},
		{"list constant as JSON", constant(`["a","b"]`), func(t *testing.T, v any) {
			if v != `["a","b"]` {
				t.Errorf("got %#v", v)
			}
		}},
		{"mark", (Spec{Kind: Mark, Mark: "t_end"}), func(t *testing.T, v any) {
			if v != end {
				t.Errorf("got %v, want %d", v, end)
			}
		}},
		{"pick entity", (Spec{Kind: Pick, Entity: "user"}), func(t *testing.T, v any) {
			e, ok := v.(int64)
			if !ok || e < base || e >= base+30 {
				t.Errorf("got %v, want an entity id in [%d, %d)", v, base, base+30)
			}
		}},
		{"pick value", (Spec{Kind: Pick, Entity: "user", Attr: "user/email"}), func(t *testing.T, v any) {
			s, ok := v.(string)
			if !ok || !strings.HasPrefix(s, "u") || !strings.HasSuffix(s, "@x") {
				t.Errorf("got %v", v)
			}
		}},
		{"picks", (Spec{Kind: Picks, Entity: "user", Attr: "user/email", N: 25}), func(t *testing.T, v any) {
			var list []string
			if err := json.Unmarshal([]byte(v.(string)), &list); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			seen := map[string]bool{}
			for _, s := range list {
				seen[s] = true
			}
			if len(list) != 25 || len(seen) != 25 {
				t.Errorf("got %d values, %d distinct, want 25", len(list), len(seen))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := New(ds, []string{"p"}, map[string]Spec{"p": tt.value})
			if err != nil {
				t.Fatal(err)
			}
			c := b.Client(1, 0)
			for i := 0; i < 20; i++ {
				tt.check(t, c.Next()[0])
			}
		})
	}
}

func TestBinderErrors(t *testing.T) {
	ds := dataset(t)
	tests := []struct {
		name   string
		values map[string]Spec
		want   string
	}{
		{"missing", map[string]Spec{}, "has no value"},
		{"unknown mark", map[string]Spec{"p": (Spec{Kind: Mark, Mark: "t_x"})}, "unknown mark"},
		{"too many picks", map[string]Spec{"p": (Spec{Kind: Picks, Entity: "user", Attr: "user/email", N: 31})}, "only 30"},
		{"unknown attr", map[string]Spec{"p": (Spec{Kind: Pick, Entity: "user", Attr: "user/nope"})}, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(ds, []string{"p"}, tt.values)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

// The same seed and client give the same parameters: runs are repeatable.
func TestClientsAreDeterministic(t *testing.T) {
	ds := dataset(t)
	v := (Spec{Kind: Pick, Entity: "user", Attr: "user/email"})
	b, err := New(ds, []string{"p"}, map[string]Spec{"p": v})
	if err != nil {
		t.Fatal(err)
	}
	a, c := b.Client(9, 2), b.Client(9, 2)
	other := b.Client(9, 3)
	differs := false
	for i := 0; i < 50; i++ {
		x, y, z := a.Next()[0], c.Next()[0], other.Next()[0]
		if x != y {
			t.Fatalf("call %d: %v != %v", i, x, y)
		}
		differs = differs || x != z
	}
	if !differs {
		t.Errorf("two clients drew the same 50 values")
	}
}

// A pick keeps the values it computed: a statement whose cache is warm
// draws exactly what a cold one draws from the same seed, and the
// values are the generator's.
func TestPickCacheDrawsTheSame(t *testing.T) {
	ds := dataset(t)
	spec := map[string]Spec{"email": {Kind: Pick, Entity: "user", Attr: "user/email"}}
	warm, err := New(ds, []string{"email"}, spec)
	if err != nil {
		t.Fatal(err)
	}
	c := warm.Client(7, 0)
	for i := 0; i < 1000; i++ { // every one of the 30 users, many times
		c.Next()
	}
	cold, err := New(ds, []string{"email"}, spec)
	if err != nil {
		t.Fatal(err)
	}
	vf, err := ds.ValueFunc("user", "user/email")
	if err != nil {
		t.Fatal(err)
	}
	emails := map[any]bool{}
	for id := int64(0); id < 30; id++ {
		emails[vf(id, -1, nil)[0].Any()] = true
	}
	a, b := warm.Client(9, 1), cold.Client(9, 1)
	for i := 0; i < 500; i++ {
		x, y := a.Next()[0], b.Next()[0]
		if x != y || !emails[x] {
			t.Fatalf("call %d: warm %v, cold %v (an email of the generator: %v)", i, x, y, emails[x])
		}
	}
	if n := testing.AllocsPerRun(100, func() { a.Next() }); n != 0 {
		t.Errorf("a warm pick allocates %v times per call", n)
	}
}
