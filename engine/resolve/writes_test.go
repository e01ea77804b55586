package resolve_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

// writesSpec is a dataset whose write blocks are writes, one per line.
func writesSpec(writes string) string {
	return `scale "xs" {
  users = 10
}

dataset "d" {
  seed    = 7
  tx_size = 5
  entity "user" {
    count = scale.users
    attr "ycsb/key" {
      type   = "string"
      unique = true
      gen    = seq("user%010d")
    }
    attr "ycsb/field0" {
      type = "string"
      gen  = weighted({ a = 1, b = 1 })
    }
    attr "ycsb/field1" {
      type = "string"
      gen  = weighted({ c = 1, d = 1 })
    }
  }
` + writes + `}
`
}

// resolveWrites loads a spec of writes and resolves them at scale xs.
func resolveWrites(t *testing.T, writes string) (*writes.Writes, hcl.Diagnostics, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.hcl")
	if err := os.WriteFile(path, []byte(writesSpec(writes)), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, diags := config.Load([]string{path}, config.Options{Env: []string{}})
	if diags.HasErrors() {
		return nil, diags, path
	}
	ctx := spec.ScaleContext(spec.Scale("xs"))
	gen, diags := resolve.Dataset(spec.Dataset("d"), ctx)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	w, diags := resolve.Writes(spec.Dataset("d"), ctx, gen)
	return w, diags, path
}

func TestWriteBlocksDecode(t *testing.T) {
	w, diags, _ := resolveWrites(t, `
  write "update" {
    entity = "user"
    attrs  = ["ycsb/field0", "ycsb/field1"]
    target = zipf("user", 0.99)
  }
  write "set" {
    entity = "user"
    attr   = "ycsb/field0"
    value  = weighted({ z = 1 })
    target = ref("user")
  }
  write "insert" {
    entity = "user"
    insert = true
  }
`)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	want := []writes.Decl{
		{Name: "update", Entity: "user", Attrs: []string{"ycsb/field0", "ycsb/field1"}, Target: datagen.Generator{Kind: datagen.GenZipf, Target: "user", S: 0.99}},
		{Name: "set", Entity: "user", Attr: "ycsb/field0", Value: datagen.Generator{Kind: datagen.GenWeighted, Choices: []string{"z"}, Weights: []float64{1}},
			Target: datagen.Generator{Kind: datagen.GenRef, Target: "user"}},
		{Name: "insert", Entity: "user", Insert: true},
	}
	for _, d := range want {
		got, ok := w.Decl(d.Name)
		if !ok || !reflect.DeepEqual(got, d) {
			t.Errorf("write %s: %+v, want %+v", d.Name, got, d)
		}
	}
	op, err := w.Op("insert", 2)
	if err != nil {
		t.Fatal(err)
	}
	if op.ID != 12 || op.Values[0].Values[0].Str != "user0000000012" {
		t.Errorf("insert 2: %+v", op)
	}
}

// Bad write blocks are refused at the line and column of the problem.
func TestWriteBlocksRefuseBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       string // summary or detail fragment
		line, col  int
	}{
		{"insert with attr", `
  write "w" {
    entity = "user"
    insert = true
    attr   = "ycsb/field0"
  }
`, "attr belongs to updates", 28, 14},
		{"insert with target", `
  write "w" {
    entity = "user"
    insert = true
    target = ref("user")
  }
`, "target belongs to updates", 28, 14},
		{"attr and attrs", `
  write "w" {
    entity = "user"
    attr   = "ycsb/field0"
    attrs  = ["ycsb/field1"]
    target = ref("user")
  }
`, "not both", 28, 14},
		{"update without attr", `
  write "w" {
    entity = "user"
    target = ref("user")
  }
`, "A write updates attr", 25, 13},
		{"update without target", `
  write "w" {
    entity = "user"
    attr   = "ycsb/field0"
  }
`, "An update needs target", 25, 13},
		{"insert not a bool", `
  write "w" {
    entity = "user"
    insert = "yes"
  }
`, "true or false", 27, 14},
		{"attrs not a list", `
  write "w" {
    entity = "user"
    attrs  = 3
    target = ref("user")
  }
`, "list of strings", 27, 14},
		{"attrs empty", `
  write "w" {
    entity = "user"
    attrs  = []
    target = ref("user")
  }
`, "at least one", 27, 14},
		{"unknown attr in attrs", `
  write "w" {
    entity = "user"
    attrs  = ["ycsb/field0", "ycsb/nope"]
    target = ref("user")
  }
`, `attr "ycsb/nope" is not an attribute`, 25, 3},
		{"unique attr", `
  write "w" {
    entity = "user"
    attr   = "ycsb/key"
    target = ref("user")
  }
`, "not unique", 25, 3},
		{"value of the wrong type", `
  write "w" {
    entity = "user"
    attr   = "ycsb/field0"
    value  = uniform(1, 3)
    target = ref("user")
  }
`, "needs type", 28, 14},
		{"unknown attribute", `
  write "w" {
    entity = "user"
    insert = true
    count  = 3
  }
`, "Unsupported argument", 28, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags, path := resolveWrites(t, tc.body)
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			var found *hcl.Diagnostic
			for _, d := range diags {
				if strings.Contains(d.Summary+" "+d.Detail, tc.want) {
					found = d
					break
				}
			}
			if found == nil {
				t.Fatalf("diagnostics %v, want one with %q", diags, tc.want)
			}
			if found.Subject == nil {
				t.Fatalf("%q has no position", tc.want)
			}
			at := fmt.Sprintf("%s:%d:%d", found.Subject.Filename, found.Subject.Start.Line, found.Subject.Start.Column)
			if want := fmt.Sprintf("%s:%d:%d", path, tc.line, tc.col); at != want {
				t.Errorf("%q at %s, want %s", tc.want, at, want)
			}
		})
	}
}
