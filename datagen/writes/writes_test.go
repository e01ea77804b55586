package writes_test

import (
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
)

// random_bytes is a write's value too: write k's text is a pure function
// of (seed, write, k).
func TestRandomBytesWriteValue(t *testing.T) {
	ds := &datagen.Dataset{Name: "w", Seed: 2, TxSize: 10, Entities: []datagen.Entity{{Name: "user", Count: 20, Attrs: []datagen.Attr{
		{Ident: "user/field0", Type: datagen.TypeString, Gen: datagen.Generator{Kind: datagen.GenRandomBytes, Length: 100}},
	}}}}
	if err := ds.Finish(); err != nil {
		t.Fatal(err)
	}
	decl := writes.Decl{Name: "update", Entity: "user", Attr: "user/field0",
		Value: datagen.Generator{Kind: datagen.GenRandomBytes, Length: 100}, Target: datagen.Generator{Kind: datagen.GenZipf, Target: "user", S: 0.99}}
	w, err := writes.New(ds, []writes.Decl{decl})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := writes.New(ds, []writes.Decl{decl})
	prev := ""
	for k := int64(0); k < 50; k++ {
		op, err := w.Op("update", k)
		if err != nil {
			t.Fatal(err)
		}
		same, _ := again.Op("update", k)
		if v := op.Value.Str; len(v) != 100 || strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" || v == prev || v != same.Value.Str {
			t.Fatalf("write %d: %q (previous %q, again %q)", k, v, prev, same.Value.Str)
		}
		prev = op.Value.Str
	}
}
