package all_test

import (
	"slices"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/kinds/all"
)

// Register adds every shipped kind once, under the name its scenarios
// write, with closed_loop as the kind of scenarios that name none; a
// second registration of the same kinds is refused.
func TestRegister(t *testing.T) {
	r := kind.NewRegistry()
	all.Register(r)
	want := []string{"capacity", "closed_loop", "cold_warm", "open_loop", "sustained", "write_mixed"}
	got := r.Names()
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("registered %v, want %v", got, want)
	}
	for _, n := range want {
		if k, ok := r.Lookup(n); !ok || k.Name() != n {
			t.Errorf("Lookup(%q) = %v, %v", n, k, ok)
		}
	}
	if r.DefaultName() != "closed_loop" {
		t.Errorf("default kind %q, want closed_loop", r.DefaultName())
	}
	defer func() {
		if recover() == nil {
			t.Error("registering the kinds twice did not panic")
		}
	}()
	all.Register(r)
}
