package params

import (
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
)

// users is a dataset of n users with a seq email.
func users(t testing.TB, n int64) *datagen.Dataset {
	t.Helper()
	ds := &datagen.Dataset{
		Name: "y", Seed: 5, TxSize: 100,
		Entities: []datagen.Entity{{Name: "user", Count: n, Attrs: []datagen.Attr{
			{Ident: "user/email", Type: datagen.TypeString, Unique: true, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "u%d@x"}},
		}}},
	}
	if err := ds.Finish(); err != nil {
		t.Fatal(err)
	}
	return ds
}

func chooser(g datagen.Generator) Spec {
	g.Target = "user"
	return Spec{Kind: Pick, Chooser: &g}
}

// liveCount follows a kind's visible count as inserts commit.
type liveCount struct{ n atomic.Int64 }

func (l *liveCount) Count(kind string) func() int64 {
	if kind != "user" {
		return nil
	}
	return l.n.Load
}

// draw binds one parameter and returns how often each user id (0-based)
// came in calls draws.
func drawIDs(t *testing.T, ds *datagen.Dataset, spec Spec, n int64, calls int, opts ...Option) []int {
	t.Helper()
	b, err := New(ds, []string{"p"}, map[string]Spec{"p": spec}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := ds.EntityID("user", 0)
	c := b.Client(1, 0)
	out := make([]int, n)
	for i := 0; i < calls; i++ {
		e := c.Next()[0].(int64) - base
		if e < 0 || e >= n {
			t.Fatalf("%s: drew user %d, not in [0, %d)", spec, e, n)
		}
		out[e]++
	}
	return out
}

func harmonic(n int64, s float64) float64 {
	h := 0.0
	for k := n; k >= 1; k-- {
		h += math.Pow(float64(k), -s)
	}
	return h
}

// A skewed pick's hottest user takes the share its constant predicts:
// 1/H(n, 0.99) within 10% for the zipfians, hot_op spread over the hot
// set for hotspot.
func TestChooserShares(t *testing.T) {
	const n, calls = 5000, 300_000
	ds := users(t, n)
	zipfShare := 1 / harmonic(n, 0.99)
	for _, tt := range []struct {
		g     datagen.Generator
		share float64 // of the hottest user
	}{
		{datagen.Generator{Kind: datagen.GenZipf, S: 0.99}, zipfShare},
		{datagen.Generator{Kind: datagen.GenScrambledZipf, S: 0.99}, zipfShare},
		{datagen.Generator{Kind: datagen.GenLatest, S: 0.99}, zipfShare},
		{datagen.Generator{Kind: datagen.GenHotspot, HotData: 0.01, HotOp: 0.5}, 0.5 / 50},
	} {
		t.Run(string(tt.g.Kind), func(t *testing.T) {
			spec := chooser(tt.g)
			cnt := drawIDs(t, ds, spec, n, calls)
			g := *spec.Chooser
			kc, err := ds.KeyChooser(g)
			if err != nil {
				t.Fatal(err)
			}
			hot := kc.Hottest(n)
			if got := float64(cnt[hot]) / calls; math.Abs(got-tt.share) > 0.1*tt.share {
				t.Errorf("user %d takes %.4f of the calls, want %.4f within 10%%", hot, got, tt.share)
			}
		})
	}
}

// latest over a live count: the newest visible user is the hottest as
// the kind grows past its loaded count, and ids past the loaded ones are
// the inserted users' entity ids.
func TestLatestFollowsLiveCount(t *testing.T) {
	const loaded = 1000
	ds := users(t, loaded)
	live := &liveCount{}
	live.n.Store(loaded)
	b, err := New(ds, []string{"e"}, map[string]Spec{"e": chooser(datagen.Generator{Kind: datagen.GenLatest, S: 0.99})}, WithLive(live))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := ds.EntityID("user", 0)
	c := b.Client(3, 1)
	for _, n := range []int64{loaded, 1200, 5000} {
		live.n.Store(n)
		cnt := map[int64]int{}
		for i := 0; i < 100_000; i++ {
			e := c.Next()[0].(int64)
			if e < base || e >= base+n {
				t.Fatalf("n=%d: entity %d is not one of the %d visible users", n, e, n)
			}
			cnt[e-base]++
		}
		top := int64(0)
		for id, x := range cnt {
			if x > cnt[top] {
				top = id
			}
		}
		if top != n-1 {
			t.Errorf("n=%d: hottest user %d, want the newest, %d", n, top, n-1)
		}
	}
}

// pick(chooser, attr) over a live count past the loaded one neither
// indexes its cache past the loaded entities nor returns a wrong value:
// a loaded user's value is its email; an inserted one's is what the
// generator gives, or nothing after the retries.
func TestPickValueBeyondLoaded(t *testing.T) {
	const loaded = 50
	ds := users(t, loaded)
	live := &liveCount{}
	live.n.Store(10 * loaded)
	spec := chooser(datagen.Generator{Kind: datagen.GenLatest, S: 0.5})
	spec.Attr = "user/email"
	b, err := New(ds, []string{"email"}, map[string]Spec{"email": spec}, WithLive(live))
	if err != nil {
		t.Fatal(err)
	}
	c := b.Client(1, 0)
	for i := 0; i < 5000; i++ {
		v := c.Next()[0]
		if s, ok := v.(string); v != nil && (!ok || !strings.HasPrefix(s, "u") || !strings.HasSuffix(s, "@x")) {
			t.Fatalf("call %d: %v is not an email", i, v)
		}
	}
}

// uniform(min, max) as a parameter: a whole number in [min, max], every
// value of a small range reached.
func TestRange(t *testing.T) {
	ds := users(t, 10)
	for _, tt := range []struct{ lo, hi int64 }{{1, 100}, {5, 5}, {-3, 3}, {math.MinInt64, math.MaxInt64}, {math.MaxInt64 - 1, math.MaxInt64}} {
		b, err := New(ds, []string{"n"}, map[string]Spec{"n": {Kind: Range, Min: tt.lo, Max: tt.hi}})
		if err != nil {
			t.Fatal(err)
		}
		c := b.Client(2, 0)
		seen := map[int64]bool{}
		for i := 0; i < 5000; i++ {
			v, ok := c.Next()[0].(int64)
			if !ok || v < tt.lo || v > tt.hi {
				t.Fatalf("uniform(%d, %d): %v", tt.lo, tt.hi, c.Next()[0])
			}
			seen[v] = true
		}
		if span := tt.hi - tt.lo + 1; span > 0 && span <= 100 && int64(len(seen)) != span {
			t.Errorf("uniform(%d, %d): %d distinct values in 5000 calls, want %d", tt.lo, tt.hi, len(seen), span)
		}
		// An int64 above 255 boxed in the argument list is the one
		// allocation of a call, as for pick(kind).
		if a := testing.AllocsPerRun(100, func() { c.Next() }); a > 1 || (tt.lo >= 0 && tt.hi < 256 && a != 0) {
			t.Errorf("uniform(%d, %d): %v allocations per call", tt.lo, tt.hi, a)
		}
	}
}

// The same seed and client draw the same keys, for every chooser; two
// clients differ.
func TestChoosersAreDeterministic(t *testing.T) {
	ds := users(t, 10_000)
	for _, g := range []datagen.Generator{
		{Kind: datagen.GenRef}, {Kind: datagen.GenZipf, S: 0.99}, {Kind: datagen.GenScrambledZipf, S: 0.99},
		{Kind: datagen.GenLatest, S: 0.99}, {Kind: datagen.GenHotspot, HotData: 0.2, HotOp: 0.8},
	} {
		spec := chooser(g)
		b, err := New(ds, []string{"p"}, map[string]Spec{"p": spec})
		if err != nil {
			t.Fatal(err)
		}
		again, err := New(ds, []string{"p"}, map[string]Spec{"p": spec})
		if err != nil {
			t.Fatal(err)
		}
		x, y, other := b.Client(9, 2), again.Client(9, 2), b.Client(9, 3)
		differs := false
		for i := 0; i < 200; i++ {
			u, v, w := x.Next()[0], y.Next()[0], other.Next()[0]
			if u != v {
				t.Fatalf("%s call %d: %v != %v", spec, i, u, v)
			}
			differs = differs || u != w
		}
		if !differs {
			t.Errorf("%s: two clients drew the same 200 keys", spec)
		}
		if a := testing.AllocsPerRun(100, func() { x.Next() }); a > 1 {
			t.Errorf("%s: %v allocations per call, want at most the boxed id's", spec, a)
		}
		// The value form reads the pick cache once warm: no allocation.
		spec.Attr = "user/email"
		vb, err := New(ds, []string{"p"}, map[string]Spec{"p": spec})
		if err != nil {
			t.Fatal(err)
		}
		vc := vb.Client(9, 2)
		for i := 0; i < 200_000; i++ {
			vc.Next()
		}
		if a := testing.AllocsPerRun(1000, func() { vc.Next() }); a != 0 {
			t.Errorf("%s: %v allocations per call", spec, a)
		}
	}
}

// pick(ref(kind)) draws exactly what pick(kind) draws.
func TestRefChooserIsPick(t *testing.T) {
	ds := users(t, 777)
	a, _ := New(ds, []string{"p"}, map[string]Spec{"p": {Kind: Pick, Entity: "user"}})
	b, _ := New(ds, []string{"p"}, map[string]Spec{"p": chooser(datagen.Generator{Kind: datagen.GenRef})})
	x, y := a.Client(4, 0), b.Client(4, 0)
	for i := 0; i < 100; i++ {
		if u, v := x.Next()[0], y.Next()[0]; u != v {
			t.Fatalf("call %d: pick(kind) %v, pick(ref(kind)) %v", i, u, v)
		}
	}
}

func TestChooserErrors(t *testing.T) {
	ds := users(t, 10)
	zipfOf := func(kind string, s float64) *datagen.Generator {
		return &datagen.Generator{Kind: datagen.GenZipf, Target: kind, S: s}
	}
	for _, tt := range []struct {
		name string
		spec Spec
		want string
	}{
		{"unknown kind", Spec{Kind: Pick, Chooser: zipfOf("nobody", 0.99)}, `pick(zipf("nobody", 0.99)): the dataset has no nobody entities`},
		{"other kind", Spec{Kind: Pick, Entity: "item", Chooser: zipfOf("user", 0.99)}, "draws user entities, not item"},
		{"bad exponent", Spec{Kind: Pick, Chooser: zipfOf("user", -1)}, "exponent"},
		{"not a chooser", Spec{Kind: Pick, Chooser: &datagen.Generator{Kind: datagen.GenUniformInt, Target: "user", Max: 3}}, "not a key chooser"},
		{"picks", Spec{Kind: Picks, Entity: "user", Attr: "user/email", N: 2, Chooser: zipfOf("user", 1)}, "picks draws uniformly"},
		{"empty range", Spec{Kind: Range, Min: 3, Max: 2}, "max is below min"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(ds, []string{"p"}, map[string]Spec{"p": tt.spec})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestSpecString(t *testing.T) {
	z := datagen.Generator{Kind: datagen.GenScrambledZipf, Target: "user", S: 0.99}
	h := datagen.Generator{Kind: datagen.GenHotspot, Target: "user", HotData: 0.2, HotOp: 0.8}
	for _, tt := range []struct {
		spec Spec
		want string
	}{
		{Spec{Kind: Pick, Entity: "user"}, `pick("user")`},
		{Spec{Kind: Pick, Entity: "user", Attr: "user/email"}, `pick("user", "user/email")`},
		{Spec{Kind: Pick, Entity: "user", Chooser: &z}, `pick(scrambled_zipf("user", 0.99))`},
		{Spec{Kind: Pick, Entity: "user", Attr: "user/email", Chooser: &h}, `pick(hotspot("user", 0.2, 0.8), "user/email")`},
		{Spec{Kind: Range, Min: 1, Max: 100}, `uniform(1, 100)`},
	} {
		if got := tt.spec.String(); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
}
