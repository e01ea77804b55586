package truth_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
)

// prefixAnswers are fingerprints of Advance's answers (values and error)
// before the journal existed: the prefix path through AdvanceJournal must
// give exactly them.
var prefixAnswers = map[string]string{
	"false/state_change/0":    "51f1c5f0cb6b5665b8bdfc61253f0254102e9ac17eb37d39f3f96412ef387df0 <nil>",
	"false/state_change/1":    "8441298fd6abcb214afe55e2be2ca3db032b8056e8de864de1ef0f24f4433cbc <nil>",
	"false/state_change/37":   "b7422373ceb49db29e5b6a983acfb2c4a00326797e5f7ed9eddba4cba248b374 <nil>",
	"false/state_change/2000": "8677d17427a43a90a103a52a96ce656854bef087c51b8a87a8f9f93450e5a860 <nil>",
	"false/reassign/0":        "51f1c5f0cb6b5665b8bdfc61253f0254102e9ac17eb37d39f3f96412ef387df0 <nil>",
	"false/reassign/1":        "805939b08b0d6990a4106c05f92cd356f6d2767c326d0b9df5d215ec8a39cb5e truth [assigned]: cannot be advanced by writes (write \"reassign\")",
	"false/reassign/37":       "805939b08b0d6990a4106c05f92cd356f6d2767c326d0b9df5d215ec8a39cb5e truth [assigned]: cannot be advanced by writes (write \"reassign\")",
	"false/reassign/2000":     "805939b08b0d6990a4106c05f92cd356f6d2767c326d0b9df5d215ec8a39cb5e truth [assigned]: cannot be advanced by writes (write \"reassign\")",
	"false/prio/0":            "51f1c5f0cb6b5665b8bdfc61253f0254102e9ac17eb37d39f3f96412ef387df0 <nil>",
	"false/prio/1":            "b5a903f975d311eae5c1aabfd840b5951e815456b2c5e9a12697ca6569ce6d80 <nil>",
	"false/prio/37":           "d1742478d9ddb438bbaefb7084be97b45d7abbf26e41e20420157b581a59aae2 <nil>",
	"false/prio/2000":         "aaed14a7caa285e310ff82a396e9f46a4614c1cf2f4298827b6de5d238a129c1 <nil>",
	"false/name/0":            "51f1c5f0cb6b5665b8bdfc61253f0254102e9ac17eb37d39f3f96412ef387df0 <nil>",
	"false/name/1":            "51f1c5f0cb6b5665b8bdfc61253f0254102e9ac17eb37d39f3f96412ef387df0 <nil>",
	"false/name/37":           "3c75c72a455696fb9ae03dbbffd785badb09297ce8f17ff1e8a60cf3c8959ee2 <nil>",
	"false/name/2000":         "b3be5f595637d55f96b5bad07a1fd3455a8aa16582b63a9afc9d58859baf4580 <nil>",
	"true/state_change/0":     "fc413b02c8e6d0b1c882f36d4d1ecf4db037eac6169e8468c540ed5f3f87dc4d <nil>",
	"true/state_change/1":     "28e9aa25c3ac34ac1c4ac1ed4228d7b4e3030899696992c06da2ba70156a6e99 <nil>",
	"true/state_change/37":    "8de8dca81d0010f549fd5f23da593d5f9dd98919259fb1d6311e02bad10add4d <nil>",
	"true/state_change/2000":  "2a91bebe4e57dfe9d4b311d0d59620cfbf213ba0ee6e3176626b28c9e418c21c <nil>",
	"true/reassign/0":         "fc413b02c8e6d0b1c882f36d4d1ecf4db037eac6169e8468c540ed5f3f87dc4d <nil>",
	"true/reassign/1":         "a2af996581fe6f7afb6149aff42852ea109e44908a5e23902ebd482dc145f3c5 truth [assigned]: cannot be advanced by writes (write \"reassign\")",
	"true/reassign/37":        "28a446a3ed99aceb65e00c62947554d86f443dc0bb3388b093b502e5be45637e truth [assigned]: cannot be advanced by writes (write \"reassign\")",
	"true/reassign/2000":      "4da67ef005dd773dde9beb85f35e2c50b94be682e5f2ca9c7e0b94a92ca36ea9 truth [assigned]: cannot be advanced by writes (write \"reassign\")",
	"true/prio/0":             "fc413b02c8e6d0b1c882f36d4d1ecf4db037eac6169e8468c540ed5f3f87dc4d <nil>",
	"true/prio/1":             "6744c32bd755ace8fbf62c0f5a4fec5558829832d0258ea1d927e94c92798015 <nil>",
	"true/prio/37":            "a0c52c94cfc7abc8ad9da0fe9b19afc8d778c14b43839826bff681b9064b3be8 <nil>",
	"true/prio/2000":          "c6c94eabff47b797fa9d1bdb63a00ce72041c082e6223e6cd475def1a0d61706 <nil>",
	"true/name/0":             "fc413b02c8e6d0b1c882f36d4d1ecf4db037eac6169e8468c540ed5f3f87dc4d <nil>",
	"true/name/1":             "fc413b02c8e6d0b1c882f36d4d1ecf4db037eac6169e8468c540ed5f3f87dc4d <nil>",
	"true/name/37":            "3484c047503aac7f31ab717917e3fd3feae0b6d4ab8a6afc3e45c7df7dc4c03d <nil>",
	"true/name/2000":          "f3e9f60ab752ca759c99b98aa63f3e48ae5bb20f9d7d7fdd80f94065a944a0b1 <nil>",
}

func prefixFingerprint(t *testing.T, extra bool, d writes.Decl, n int64) string {
	t.Helper()
	ds := datagentest.Finished(t, datagentest.ScaleXS, extra)
	w, err := writes.New(ds, []writes.Decl{d})
	if err != nil {
		t.Fatal(err)
	}
	base, err := truth.Compute(context.Background(), ds, 2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := truth.Advance(base, w, d.Name, n)
	raw, jerr := json.Marshal(got.Values)
	if jerr != nil {
		t.Fatal(jerr)
	}
	return fmt.Sprintf("%x %v", sha256.Sum256(raw), err)
}

func prefixDecls() []writes.Decl {
	return []writes.Decl{
		stateWrite,
		{Name: "reassign", Entity: "issue", Attr: "issue/assignee",
			Value: datagen.Generator{Kind: datagen.GenRef, Target: "user"}, Target: datagen.Generator{Kind: datagen.GenRef, Target: "issue"}},
		{Name: "prio", Entity: "issue", Attr: "issue/priority",
			Value: datagen.Generator{Kind: datagen.GenUniformInt, Min: 1, Max: 5}, Target: datagen.Generator{Kind: datagen.GenZipf, Target: "issue", S: 0.9}},
		{Name: "name", Entity: "user", Attr: "user/name",
			Value: datagen.Generator{Kind: datagen.GenWeighted, Choices: []string{"a", "b"}, Weights: []float64{1, 1}}, Target: datagen.Generator{Kind: datagen.GenRef, Target: "user"}},
	}
}

func TestAdvancePrefixGivesTheAnswersOfBeforeTheJournal(t *testing.T) {
	for _, extra := range []bool{false, true} {
		for _, d := range prefixDecls() {
			for _, n := range []int64{0, 1, 37, 2000} {
				key := fmt.Sprintf("%v/%s/%d", extra, d.Name, n)
				got := prefixFingerprint(t, extra, d, n)
				want, ok := prefixAnswers[key]
				if !ok {
					t.Fatalf("%s: no recorded answer (%q)", key, got)
				}
				if got != want {
					t.Errorf("%s: %s, want %s", key, got, want)
				}
			}
		}
	}
}
