package datagen

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
)

// harmonic is H(n, s) = sum over k in 1..n of k^-s: the hottest key of a
// zipfian over n takes 1/H of the draws.
func harmonic(n int64, s float64) float64 {
	h := 0.0
	for k := n; k >= 1; k-- {
		h += math.Pow(float64(k), -s)
	}
	return h
}

func mustChooser(t testing.TB, g Generator, n0 int64) *KeyChooser {
	t.Helper()
	c, err := NewKeyChooser(g, 42, n0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// counts draws ids over n and returns how often each came.
func counts(c *KeyChooser, r *rand.Rand, n int64, draws int) []int {
	out := make([]int, n)
	for i := 0; i < draws; i++ {
		out[c.Next(r, n)]++
	}
	return out
}

func argmax(xs []int) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}

// The hottest key of each zipfian chooser takes the share the constant
// predicts, 1/H(n, s), within 10%, and it is the key the chooser says.
func TestZipfianHottestShare(t *testing.T) {
	const draws = 400_000
	for _, n := range []int64{1000, 50_000} {
		for _, tt := range []struct {
			kind    GenKind
			hottest func(c *KeyChooser, n int64) int64
		}{
			{GenZipf, func(*KeyChooser, int64) int64 { return 0 }},
			{GenScrambledZipf, func(c *KeyChooser, n int64) int64 { return int64(c.permute(0, uint64(n))) }},
			{GenLatest, func(_ *KeyChooser, n int64) int64 { return n - 1 }},
			{GenScrambledZipf, (*KeyChooser).Hottest},
			{GenLatest, (*KeyChooser).Hottest},
		} {
			t.Run(string(tt.kind), func(t *testing.T) {
				c := mustChooser(t, Generator{Kind: tt.kind, S: 0.99}, n)
				cnt := counts(c, rand.New(rand.NewPCG(1, 2)), n, draws)
				want := 1 / harmonic(n, 0.99)
				hot := tt.hottest(c, n)
				got := float64(cnt[hot]) / draws
				if math.Abs(got-want) > 0.1*want {
					t.Errorf("n=%d: key %d takes %.4f of the draws, want %.4f (1/H(n, 0.99)) within 10%%", n, hot, got, want)
				}
				if top := int64(argmax(cnt)); top != hot {
					t.Errorf("n=%d: the most drawn key is %d, want %d", n, top, hot)
				}
			})
		}
	}
}

// A draw at another n than the chooser's is the draw a chooser made for
// that n would give: only the n-dependent constant is recomputed.
func TestZipfAtAnotherN(t *testing.T) {
	c := mustChooser(t, Generator{Kind: GenZipf, S: 0.99}, 1000)
	for _, n := range []int64{1, 2, 999, 1001, 123_456} {
		fresh := mustChooser(t, Generator{Kind: GenZipf, S: 0.99}, n)
		for call := int64(0); call < 200; call++ {
			if a, b := c.NextAt(7, call, n), fresh.NextAt(7, call, n); a != b {
				t.Fatalf("n=%d call %d: %d, fresh chooser %d", n, call, a, b)
			}
		}
	}
}

// latest follows n: as the kind grows, the newest entity is the hottest.
func TestLatestFollowsN(t *testing.T) {
	c := mustChooser(t, Generator{Kind: GenLatest, S: 0.99}, 1000)
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int64{1000, 1500, 4000} {
		cnt := counts(c, r, n, 200_000)
		if top := int64(argmax(cnt)); top != n-1 {
			t.Errorf("n=%d: hottest key %d, want %d", n, top, n-1)
		}
		if cnt[n-1] < cnt[n-2] || cnt[n-2] < cnt[n/2] {
			t.Errorf("n=%d: shares do not fall with age: %d, %d, %d", n, cnt[n-1], cnt[n-2], cnt[n/2])
		}
	}
}

// hotspot sends hot_op of the draws to the hot_data lowest ids,
// uniformly within each set.
func TestHotspotShares(t *testing.T) {
	const n, draws = 1000, 400_000
	for _, tt := range []struct {
		data, op float64
		hot      int64 // size of the hot set
		hotShare float64
	}{
		{0.2, 0.8, 200, 0.8},
		{0.01, 0.99, 10, 0.99},
		{0, 0.9, 0, 0},     // no hot keys: all uniform
		{1, 0.3, 1000, 1},  // every key hot
		{0.5, 0, 500, 0},   // no draw goes hot
		{0.1, 1, 100, 1.0}, // every draw goes hot
	} {
		c := mustChooser(t, Generator{Kind: GenHotspot, HotData: tt.data, HotOp: tt.op}, n)
		cnt := counts(c, rand.New(rand.NewPCG(5, 6)), n, draws)
		var inHot int
		for _, x := range cnt[:tt.hot] {
			inHot += x
		}
		if got := float64(inHot) / draws; math.Abs(got-tt.hotShare) > 0.01 {
			t.Errorf("hotspot(%g, %g): hot set takes %.4f, want %.4f", tt.data, tt.op, got, tt.hotShare)
		}
		// Uniform within each set: every key within 5 sigma of its set's mean.
		for _, set := range [][2]int64{{0, tt.hot}, {tt.hot, n}} {
			lo, hi := set[0], set[1]
			total := 0
			for _, x := range cnt[lo:hi] {
				total += x
			}
			if hi == lo || total == 0 {
				continue
			}
			mean := float64(total) / float64(hi-lo)
			for id := lo; id < hi; id++ {
				if math.Abs(float64(cnt[id])-mean) > 5*math.Sqrt(mean) {
					t.Fatalf("hotspot(%g, %g): key %d drawn %d times, its set's mean is %.0f", tt.data, tt.op, id, cnt[id], mean)
				}
			}
		}
	}
}

// The scrambling is a bijection of [0, n) for every n: each key keeps
// exactly one rank's share.
func TestPermuteIsABijection(t *testing.T) {
	c := mustChooser(t, Generator{Kind: GenScrambledZipf, S: 0.99}, 10)
	ns := []uint64{65, 255, 256, 257, 1000, 4096, 4097, 65_537}
	for n := uint64(1); n <= 64; n++ {
		ns = append(ns, n)
	}
	for _, n := range ns {
		seen := make([]bool, n)
		for x := uint64(0); x < n; x++ {
			y := c.permute(x, n)
			if y >= n || seen[y] {
				t.Fatalf("n=%d: %d maps to %d, out of range or taken", n, x, y)
			}
			seen[y] = true
		}
	}
	// Another key, another permutation.
	d, _ := NewKeyChooser(Generator{Kind: GenScrambledZipf, S: 0.99}, 43, 10)
	same := 0
	for x := uint64(0); x < 1000; x++ {
		if c.permute(x, 1000) == d.permute(x, 1000) {
			same++
		}
	}
	if same > 20 {
		t.Errorf("keys 42 and 43 agree on %d of 1000 keys", same)
	}
}

// Every chooser stays in [0, n), for small n too, and -1 for no entity.
func TestKeyChooserBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, g := range []Generator{
		{Kind: GenRef}, {Kind: GenZipf, S: 0.99}, {Kind: GenScrambledZipf, S: 1.2},
		{Kind: GenLatest, S: 0.5}, {Kind: GenHotspot, HotData: 0.3, HotOp: 0.7},
	} {
		c := mustChooser(t, g, 5)
		if got := c.Next(r, 0); got != -1 {
			t.Errorf("%s over 0 entities: %d, want -1", g.Kind, got)
		}
		for _, n := range []int64{1, 2, 3, 7, 1 << 40} {
			for i := 0; i < 2000; i++ {
				if id := c.Next(r, n); id < 0 || id >= n {
					t.Fatalf("%s over %d: drew %d", g.Kind, n, id)
				}
				if id := c.NextAt(1, int64(i), n); id < 0 || id >= n {
					t.Fatalf("%s over %d (counter): drew %d", g.Kind, n, id)
				}
			}
		}
		if a := testing.AllocsPerRun(100, func() { c.Next(r, 1_000_000) }); a != 0 {
			t.Errorf("%s: %v allocations per draw", g.Kind, a)
		}
	}
}

func TestNewKeyChooserErrors(t *testing.T) {
	for _, tt := range []struct {
		g    Generator
		want string
	}{
		{Generator{Kind: GenZipf}, "exponent"},
		{Generator{Kind: GenLatest, S: math.Inf(1)}, "exponent"},
		{Generator{Kind: GenHotspot, HotData: 1.5, HotOp: 0.5}, "must be in [0, 1]"},
		{Generator{Kind: GenHotspot, HotData: 0.5, HotOp: -1}, "must be in [0, 1]"},
		{Generator{Kind: GenUniformInt, Min: 1, Max: 2}, "not a key chooser"},
	} {
		if _, err := NewKeyChooser(tt.g, 0, 10); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v, want it to mention %q", tt.g, err, tt.want)
		}
	}
}

// The new generators in a dataset: ref attributes drawn by each chooser
// over the target's count, and random_bytes text; the load's values are
// the ones ValueFunc computes, and ref attributes keep each chooser's
// shape.
func TestChooserAndRandomBytesAttributes(t *testing.T) {
	const users = 2000
	ds := &Dataset{Name: "y", Seed: 11, TxSize: 100, Entities: []Entity{
		{Name: "user", Count: users, Attrs: []Attr{
			{Ident: "user/key", Type: TypeString, Unique: true, Gen: Generator{Kind: GenSeq, Format: "user%d"}},
			{Ident: "user/field0", Type: TypeString, Gen: Generator{Kind: GenRandomBytes, Length: 100}},
			{Ident: "user/tag", Type: TypeKeyword, Gen: Generator{Kind: GenRandomBytes, Length: 7}},
		}},
		{Name: "op", Count: 20_000, Attrs: []Attr{
			{Ident: "op/scrambled", Type: TypeRef, Gen: Generator{Kind: GenScrambledZipf, Target: "user", S: 0.99}},
			{Ident: "op/latest", Type: TypeRef, Gen: Generator{Kind: GenLatest, Target: "user", S: 0.99}},
			{Ident: "op/hot", Type: TypeRef, Gen: Generator{Kind: GenHotspot, Target: "user", HotData: 0.1, HotOp: 0.9}},
		}},
	}}
	if err := ds.Finish(); err != nil {
		t.Fatal(err)
	}
	base, _ := ds.EntityID("user", 0)
	funcs := map[string]func(int64, int64, []Value) []Value{}
	for _, a := range ds.Attrs() {
		vf, err := ds.ValueFunc(a.Entity, a.Ident)
		if err != nil {
			t.Fatal(err)
		}
		funcs[a.Ident] = vf
	}
	idents := map[int32]string{}
	for _, a := range ds.Attrs() {
		idents[a.ID] = a.Ident
	}
	refs := map[string][]int{"op/scrambled": make([]int, users), "op/latest": make([]int, users), "op/hot": make([]int, users)}
	err := ds.Stream(context.Background(), 0, ds.TxCount(), func(tx *Tx) error {
		for _, d := range tx.Datoms {
			ident := idents[d.A]
			id := d.E % EntityBase
			if want := funcs[ident](id, -1, nil)[0]; !want.Equal(d.V) {
				t.Fatalf("%s of %d: loaded %v, ValueFunc %v", ident, id, d.V, want)
			}
			switch ident {
			case "user/field0", "user/tag":
				n := map[string]int{"user/field0": 100, "user/tag": 7}[ident]
				if len(d.V.Str) != n || strings.Trim(d.V.Str, randomAlphabet) != "" {
					t.Fatalf("%s of %d: %q, want %d base64url characters", ident, id, d.V.Str, n)
				}
			case "op/scrambled", "op/latest", "op/hot":
				u := d.V.Int - base
				if u < 0 || u >= users {
					t.Fatalf("%s of %d: %d is not a user", ident, id, d.V.Int)
				}
				refs[ident][u]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	kc, err := ds.KeyChooser(Generator{Kind: GenScrambledZipf, Target: "user", S: 0.99})
	if err != nil {
		t.Fatal(err)
	}
	// One permutation per (seed, kind): a query parameter over users has
	// the hot users of the ref attribute.
	if top, want := argmax(refs["op/scrambled"]), kc.permute(0, users); uint64(top) != want {
		t.Errorf("op/scrambled: hottest user %d, the kind's permutation says %d", top, want)
	}
	if top := argmax(refs["op/latest"]); top != users-1 {
		t.Errorf("op/latest: hottest user %d, want %d", top, users-1)
	}
	hot := 0
	for _, x := range refs["op/hot"][:users/10] {
		hot += x
	}
	if share := float64(hot) / 20_000; math.Abs(share-0.9) > 0.02 {
		t.Errorf("op/hot: the hot tenth takes %.3f, want 0.9", share)
	}
	// Random bytes differ between entities and attributes.
	a, b := funcs["user/field0"](0, -1, nil)[0].Str, funcs["user/field0"](1, -1, nil)[0].Str
	if a == b {
		t.Errorf("users 0 and 1 have the same field0 %q", a)
	}
}

func TestChooserAttributeErrors(t *testing.T) {
	for _, tt := range []struct {
		a    Attr
		want string
	}{
		{Attr{Ident: "x/r", Type: TypeLong, Gen: Generator{Kind: GenLatest, Target: "user", S: 1}}, "needs type ref"},
		{Attr{Ident: "x/r", Type: TypeRef, Gen: Generator{Kind: GenHotspot, Target: "nobody", HotData: 0.1, HotOp: 0.9}}, `target "nobody" is not an entity`},
		{Attr{Ident: "x/r", Type: TypeRef, Gen: Generator{Kind: GenScrambledZipf, Target: "user"}}, "exponent"},
		{Attr{Ident: "x/b", Type: TypeLong, Gen: Generator{Kind: GenRandomBytes, Length: 3}}, "needs type string or keyword"},
		{Attr{Ident: "x/b", Type: TypeString, Gen: Generator{Kind: GenRandomBytes}}, "length 0 must be in"},
	} {
		ds := &Dataset{Name: "e", Seed: 1, TxSize: 10, Entities: []Entity{
			{Name: "user", Count: 5, Attrs: []Attr{{Ident: "user/k", Type: TypeString, Gen: Generator{Kind: GenSeq, Format: "u%d"}}}},
			{Name: "x", Count: 5, Attrs: []Attr{tt.a}},
		}}
		if err := ds.Finish(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: err = %v, want it to mention %q", tt.a.Gen.Kind, tt.a.Type, err, tt.want)
		}
	}
}

// random_bytes: exactly length characters of the alphabet, each about
// equally often (so the text does not compress like a seq filler), and a
// pure function of (seed, attribute, id, version).
func TestRandomBytes(t *testing.T) {
	for _, n := range []int{1, 9, 10, 11, 19, 20, 33, 100, 1000} {
		g := genComp{s: draw.NewStream(1, "user", "user/f"), length: n}
		freq := map[byte]int{}
		total := 0
		for id := int64(0); id < 2000; id++ {
			v := string(g.appendRandom([]byte("x"), id, 0))
			if len(v) != n+1 || v[0] != 'x' || strings.Trim(v[1:], randomAlphabet) != "" {
				t.Fatalf("length %d id %d: %q", n, id, v)
			}
			if again := string(g.appendRandom(nil, id, 0)); again != v[1:] {
				t.Fatalf("length %d id %d: %q then %q", n, id, v[1:], again)
			}
			for i := 1; i < len(v); i++ {
				freq[v[i]]++
			}
			total += n
		}
		if total < 64*500 {
			continue
		}
		for i := 0; i < len(randomAlphabet); i++ {
			want := float64(total) / 64
			if got := float64(freq[randomAlphabet[i]]); math.Abs(got-want) > 5*math.Sqrt(want) {
				t.Errorf("length %d: %q comes %.0f times, want %.0f", n, randomAlphabet[i], got, want)
			}
		}
	}
	g := genComp{s: draw.NewStream(1, "user", "user/f"), length: 50}
	if string(g.appendRandom(nil, 3, 0)) == string(g.appendRandom(nil, 3, 1)) {
		t.Errorf("versions 0 and 1 of id 3 are the same")
	}
}
