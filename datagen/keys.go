package datagen

import (
	"fmt"
	"math/bits"

	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
)

// Source is a uniform 64-bit random source: a client's *math/rand/v2.Rand,
// or anything else whose draws the caller makes reproducible.
type Source interface{ Uint64() uint64 }

// KeyChooser draws an entity id in [0, n) with one of the key chooser
// table's distributions (choosers.go; YCSB's request distributions among
// them). n is an argument of every draw, not of the chooser, so the key
// space can grow as inserts commit; a draw of the built-in distributions
// costs O(1) whatever n is and allocates nothing. A KeyChooser is
// read-only after NewKeyChooser and safe for concurrent use.
type KeyChooser struct {
	kind GenKind
	dist Distribution
}

// NewKeyChooser compiles g, a key chooser generator (IsKeyChooser), with
// key choosing any permutation (scrambled_zipf's). n0 is the entity count
// the chooser expects most often (draws at another n may cost more); it
// may be 0.
func NewKeyChooser(g Generator, key uint64, n0 int64) (*KeyChooser, error) {
	c := &KeyChooser{}
	if err := c.init(g, key, n0); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *KeyChooser) init(g Generator, key uint64, n0 int64) error {
	ch, ok := LookupChooser(g.Kind)
	if !ok {
		return fmt.Errorf("%q is not a key chooser (%s)", g.Kind, ChooserNames())
	}
	args := ch.ArgsOf(g)
	if err := ch.Check(args); err != nil {
		return err
	}
	c.kind, c.dist = g.Kind, ch.Compile(args, key, max(n0, 1))
	return nil
}

// Kind is the generator kind the chooser was made from.
func (c *KeyChooser) Kind() GenKind { return c.kind }

// Hottest is the id drawn most often over n: 0 for zipf and hotspot (and
// any id for ref, which has none), n-1 for latest, the image of rank 0
// for scrambled_zipf; -1 when n < 1.
func (c *KeyChooser) Hottest(n int64) int64 {
	if n < 1 {
		return -1
	}
	return c.dist.Hottest(n)
}

// Next draws an id in [0, n) from src (-1 when n < 1).
func (c *KeyChooser) Next(src Source, n int64) int64 {
	return c.draw(Draws{src: src}, n)
}

// NextAt draws an id in [0, n) from the counter-based stream of (key,
// call): the same arguments give the same id, with no state carried
// between calls (-1 when n < 1).
func (c *KeyChooser) NextAt(key uint64, call int64, n int64) int64 {
	return c.draw(Draws{h: draw.Mix64(key + uint64(call)*draw.Gamma)}, n)
}

func (c *KeyChooser) draw(d Draws, n int64) int64 {
	if n < 1 {
		return -1
	}
	return c.dist.Draw(d, n)
}

// Draws are the uniform inputs of one draw: a caller's Source, or
// counter-based draws of an id state at a version word. A distribution
// takes it by value, so a draw allocates nothing.
type Draws struct {
	src         Source
	h, ver, idx uint64
}

// Next is the draw's next uniform 64-bit word.
func (d *Draws) Next() uint64 {
	if d.src != nil {
		return d.src.Uint64()
	}
	u := draw.At(d.h, d.ver, d.idx)
	d.idx++
	return u
}

// Unit is the next uniform in [0, 1).
func (d *Draws) Unit() float64 { return draw.Unit(d.Next()) }

// Below is the next uniform whole number in [0, n), n >= 1.
func (d *Draws) Below(n int64) int64 { return int64(draw.Below(d.Next(), uint64(n))) }

// The built-in key choosers, registered before any init function runs so
// a distribution registered elsewhere comes after them.
var _ = registerBuiltinChoosers()

// defaultZipfExponent is YCSB's zipfian constant.
const defaultZipfExponent = 0.99

func registerBuiltinChoosers() bool {
	zipfArgs := func(g Generator) []float64 { return []float64{g.S} }
	setZipf := func(g *Generator, a []float64) { g.S = a[0] }
	RegisterChooser(Chooser{Kind: GenRef, Doc: "A reference to a uniformly chosen entity of a kind.",
		Args: func(Generator) []float64 { return nil }, SetArgs: func(*Generator, []float64) {},
		Compile: func([]float64, uint64, int64) Distribution { return uniformKeys{} }, Uniform: true})
	RegisterChooser(Chooser{Kind: GenZipf, Doc: "A reference to an entity of a kind, zipf-distributed over ids (id 0 hottest).",
		Params: []ChooserParam{Exponent(0, false)}, Args: zipfArgs, SetArgs: setZipf,
		Compile: func(a []float64, _ uint64, n0 int64) Distribution { return zipfKeys{newZipfSampler(n0, a[0])} }})
	RegisterChooser(Chooser{Kind: GenScrambledZipf, Doc: "A reference to an entity of a kind, zipf-distributed over ranks mapped through a pseudo-random permutation of the ids, so the hot entities spread over the id space; the exponent defaults to YCSB's 0.99.",
		Params: []ChooserParam{Exponent(defaultZipfExponent, true)}, Args: zipfArgs, SetArgs: setZipf,
		Compile: func(a []float64, key uint64, n0 int64) Distribution {
			s := scrambledKeys{zipf: zipfKeys{newZipfSampler(n0, a[0])}}
			for i := range s.rounds {
				s.rounds[i] = draw.Mix64(key + uint64(i+1)*draw.Gamma)
			}
			return s
		}})
	RegisterChooser(Chooser{Kind: GenLatest, Doc: "A reference to an entity of a kind, zipf-distributed from the newest id down (YCSB's latest); the exponent defaults to 0.99.",
		Params: []ChooserParam{Exponent(defaultZipfExponent, true)}, Args: zipfArgs, SetArgs: setZipf,
		Compile: func(a []float64, _ uint64, n0 int64) Distribution {
			return latestKeys{zipfKeys{newZipfSampler(n0, a[0])}}
		}})
	RegisterChooser(Chooser{Kind: GenHotspot, Doc: "A reference to an entity of a kind: hot_op_fraction of the draws go uniformly to the hot_data_fraction of lowest ids, the others uniformly to the rest (YCSB's hotspot).",
		Params:  []ChooserParam{Fraction("hot_data_fraction"), Fraction("hot_op_fraction")},
		Args:    func(g Generator) []float64 { return []float64{g.HotData, g.HotOp} },
		SetArgs: func(g *Generator, a []float64) { g.HotData, g.HotOp = a[0], a[1] },
		Compile: func(a []float64, _ uint64, _ int64) Distribution { return hotspotKeys{a[0], a[1]} }})
	return true
}

// uniformKeys is ref: every id alike.
type uniformKeys struct{}

func (uniformKeys) Draw(d Draws, n int64) int64 { return d.Below(n) }
func (uniformKeys) Hottest(int64) int64         { return 0 }

// zipfKeys is zipf: rank r is id r, id 0 hottest.
type zipfKeys struct{ z zipfSampler }

func (k zipfKeys) Draw(d Draws, n int64) int64 { return k.rank(&d, n) }
func (zipfKeys) Hottest(int64) int64           { return 0 }

// rank is a zipfian rank in [0, n), 0 the most frequent. Only
// hIntegral(n + 0.5) depends on n: a draw at another n than the
// chooser's recomputes it on a copy, which keeps the chooser read-only.
func (k zipfKeys) rank(d *Draws, n int64) int64 {
	z := k.z
	if fn := float64(n); fn != z.n {
		z.n = fn
		z.hIntegralN = z.hIntegral(fn + 0.5)
	}
	return z.sampleFrom(d)
}

// latestKeys is latest: the newest id hottest.
type latestKeys struct{ zipfKeys }

func (k latestKeys) Draw(d Draws, n int64) int64 { return n - 1 - k.rank(&d, n) }
func (latestKeys) Hottest(n int64) int64         { return n - 1 }

// scrambledKeys is scrambled_zipf: a rank through a keyed permutation.
type scrambledKeys struct {
	zipf   zipfKeys
	rounds [feistelRounds]uint64
}

func (k scrambledKeys) Draw(d Draws, n int64) int64 {
	return int64(k.permute(uint64(k.zipf.rank(&d, n)), uint64(n)))
}
func (k scrambledKeys) Hottest(n int64) int64 { return int64(k.permute(0, uint64(n))) }

// hotspotKeys is hotspot: the hot set follows n, floor(n * hotD) lowest
// ids. An empty hot set (or cold set) takes every draw to the other one,
// where YCSB would fail drawing from an empty interval.
type hotspotKeys struct{ hotD, hotOp float64 }

func (k hotspotKeys) Draw(d Draws, n int64) int64 {
	hot := int64(float64(n) * k.hotD)
	if hot == n || (hot > 0 && d.Unit() < k.hotOp) {
		return d.Below(hot)
	}
	return hot + d.Below(n-hot)
}
func (hotspotKeys) Hottest(int64) int64 { return 0 }

// feistelRounds: four rounds of a Feistel network with pseudo-random
// round functions are a pseudo-random permutation (Luby-Rackoff).
const feistelRounds = 4

// permute is a keyed bijection of [0, n): a balanced Feistel network
// over the smallest even number of bits holding n-1, cycle-walking
// (re-encrypting) until the value falls below n; the domain is under 4n,
// so that takes fewer than four rounds on average. A permutation rather
// than YCSB's FNV hash modulo n: a hash can send two ranks to one key
// (and leave others cold), so the hottest key's share would not be the
// zipfian share; a permutation gives every key exactly one rank's. The
// permutation is of the n of the draw: when n grows the hot keys move.
func (k scrambledKeys) permute(x, n uint64) uint64 {
	if n <= 1 {
		return 0
	}
	b := bits.Len64(n - 1)
	b += b & 1
	half := uint(b / 2)
	mask := uint64(1)<<half - 1
	for {
		l, r := x>>half, x&mask
		for _, rk := range k.rounds {
			l, r = r, l^(draw.Mix64(r^rk)&mask)
		}
		x = l<<half | r
		if x < n {
			return x
		}
	}
}

// sampleFrom is sample with the uniforms taken from d.
func (z *zipfSampler) sampleFrom(d *Draws) int64 {
	var k float64
	for attempt := 0; attempt < maxZipfAttempts; attempt++ {
		var ok bool
		if k, ok = z.attempt(d.Unit()); ok {
			break
		}
	}
	return int64(k) - 1
}

// scrambleKey keys the permutation of scrambled_zipf over a kind: it
// depends on the random seed and the kind only, so every chooser over the kind
// (a ref attribute, a query parameter, a write target) has the same hot
// entities.
func scrambleKey(seed uint64, kind string) uint64 {
	return uint64(draw.NewStream(seed, "scramble", kind))
}

// KeyChooser compiles a key chooser generator over one of the dataset's
// kinds (g.Target), expecting the kind's loaded count.
func (ds *Dataset) KeyChooser(g Generator) (*KeyChooser, error) {
	c, err := ds.compiled()
	if err != nil {
		return nil, err
	}
	k, ok := c.byKind[g.Target]
	if !ok {
		return nil, fmt.Errorf("datagen: %s target %q is not an entity", g.Kind, g.Target)
	}
	kc, err := NewKeyChooser(g, scrambleKey(ds.Seed, g.Target), c.kinds[k].count)
	if err != nil {
		return nil, fmt.Errorf("datagen: %w", err)
	}
	return kc, nil
}
