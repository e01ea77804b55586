package datagen

import (
	"encoding/json"
	"strings"
	"testing"
)

// permute is scrambled_zipf's permutation, for the tests of its shape.
func (c *KeyChooser) permute(x, n uint64) uint64 { return c.dist.(scrambledKeys).permute(x, n) }

// The table lists the built-in choosers in their order, and every reader
// of a kind (IsKeyChooser, the messages, String) goes by it.
func TestChooserTable(t *testing.T) {
	if got, want := ChooserNames(), "ref, zipf, scrambled_zipf, latest, hotspot"; !strings.HasPrefix(got, want) {
		t.Errorf("ChooserNames() = %q, want it to start with %q", got, want)
	}
	for _, tc := range []struct {
		g    Generator
		want string
	}{
		{Generator{Kind: GenRef, Target: "user"}, `ref("user")`},
		{Generator{Kind: GenZipf, Target: "user", S: 1.1}, `zipf("user", 1.1)`},
		{Generator{Kind: GenLatest, Target: "user", S: 0.99}, `latest("user", 0.99)`},
		{Generator{Kind: GenHotspot, Target: "user", HotData: 0.2, HotOp: 0.8}, `hotspot("user", 0.2, 0.8)`},
	} {
		c, ok := LookupChooser(tc.g.Kind)
		if !ok {
			t.Fatalf("%s is not in the table", tc.g.Kind)
		}
		if got := c.String(tc.g); got != tc.want {
			t.Errorf("String = %s, want %s", got, tc.want)
		}
		if back := c.Generator(tc.g.Target, c.ArgsOf(tc.g)); c.String(back) != tc.want {
			t.Errorf("Generator(ArgsOf) = %s, want %s", c.String(back), tc.want)
		}
	}
	if IsKeyChooser(GenSample) || IsKeyChooser(GenUniformInt) {
		t.Error("sample or uniform taken for a key chooser")
	}
}

// A built-in chooser's generator encodes as before the table (stores'
// fingerprints hash the dataset's JSON): Args is left out when empty.
func TestChooserGeneratorJSONUnchanged(t *testing.T) {
	b, err := json.Marshal(Generator{Kind: GenZipf, Target: "user", S: 1.1})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "Args") {
		t.Errorf("a zipf generator's JSON holds Args: %s", b)
	}
	b, _ = json.Marshal(Generator{Kind: "power", Target: "user", Args: []float64{3}})
	if !strings.Contains(string(b), `"Args":[3]`) {
		t.Errorf("a registered chooser's numbers are not in its JSON: %s", b)
	}
}
