package drivers_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
)

type nopDriver struct{ id int }

func (nopDriver) Dialect() string       { return "nop" }
func (nopDriver) OptionNames() []string { return nil }

func (nopDriver) Open(context.Context, drivers.Config) (drivers.Backend, error) {
	return nil, errors.New("not a real driver")
}

func TestRegistry(t *testing.T) {
	r := drivers.NewRegistry()
	if names := r.Names(); len(names) != 0 {
		t.Fatalf("new registry has %v", names)
	}
	for i, name := range []string{"sqlite", "duckdb", "postgres"} {
		if err := r.Register(name, nopDriver{i}); err != nil {
			t.Fatalf("Register(%q): %v", name, err)
		}
	}
	err := r.Register("duckdb", nopDriver{9})
	if !errors.Is(err, drivers.ErrDuplicate) {
		t.Errorf("duplicate Register: err = %v, want ErrDuplicate", err)
	}
	if d, ok := r.Lookup("duckdb"); !ok || d != (nopDriver{1}) {
		t.Errorf("Lookup(duckdb) = %v, %v; want the first registration", d, ok)
	}
	if _, ok := r.Lookup("mysql"); ok {
		t.Error("Lookup(mysql) found a driver")
	}
	if got, want := r.Names(), []string{"duckdb", "postgres", "sqlite"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustRegister of a duplicate did not panic")
		}
	}()
	r.MustRegister("sqlite", nopDriver{})
}
