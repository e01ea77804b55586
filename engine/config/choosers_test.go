package config

import (
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
)

// random_bytes is a generator of its length.
func TestRandomBytesFunc(t *testing.T) {
	v, diags := evalFn(t, `random_bytes(100)`)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if g, ok := AsGenerator(v); !ok || g.Kind != datagen.GenRandomBytes || g.Length != 100 {
		t.Errorf("got %+v", g)
	}
}
