package datagen

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
)

// Source is a uniform 64-bit random source: a client's *math/rand/v2.Rand,
// or anything else whose draws the caller makes reproducible.
type Source interface{ Uint64() uint64 }

// KeyChooser draws an entity id in [0, n) with one of YCSB's request
// distributions. n is an argument of every draw, not of the chooser, so
// the key space can grow as inserts commit; a draw costs O(1) whatever n
// is and allocates nothing. A KeyChooser is read-only after
// NewKeyChooser and safe for concurrent use.
type KeyChooser struct {
	kind   GenKind
	zipf   zipfSampler // the exponent's constants, at the n of construction
	rounds [feistelRounds]uint64
	hotD   float64 // hotspot: fraction of the keys that are hot
	hotOp  float64 // hotspot: fraction of the draws that go to them
}

// IsKeyChooser reports whether generators of kind k draw one entity of
// their Target: ref, zipf, scrambled_zipf, latest, hotspot.
func IsKeyChooser(k GenKind) bool {
	switch k {
	case GenRef, GenZipf, GenScrambledZipf, GenLatest, GenHotspot:
		return true
	}
	return false
}

// feistelRounds: four rounds of a Feistel network with pseudo-random
// round functions are a pseudo-random permutation (Luby-Rackoff).
const feistelRounds = 4

// NewKeyChooser compiles g, a key chooser generator (IsKeyChooser), with
// key choosing the permutation of scrambled_zipf. n0 is the entity count
// the chooser expects most often (draws at another n pay one logarithm
// more); it may be 0.
func NewKeyChooser(g Generator, key uint64, n0 int64) (*KeyChooser, error) {
	c := &KeyChooser{kind: g.Kind}
	if err := c.init(g, key, n0); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *KeyChooser) init(g Generator, key uint64, n0 int64) error {
	c.kind = g.Kind
	switch g.Kind {
	case GenRef:
	case GenZipf, GenScrambledZipf, GenLatest:
		if !(g.S > 0) || math.IsInf(g.S, 0) {
			return fmt.Errorf("%s exponent %g must be finite and > 0", g.Kind, g.S)
		}
		c.zipf = newZipfSampler(max(n0, 1), g.S)
	case GenHotspot:
		if !(g.HotData >= 0 && g.HotData <= 1) || !(g.HotOp >= 0 && g.HotOp <= 1) {
			return fmt.Errorf("hotspot fractions (%g of the keys, %g of the draws) must be in [0, 1]", g.HotData, g.HotOp)
		}
		c.hotD, c.hotOp = g.HotData, g.HotOp
	default:
		return fmt.Errorf("%q is not a key chooser (ref, zipf, scrambled_zipf, latest or hotspot)", g.Kind)
	}
	for i := range c.rounds {
		c.rounds[i] = draw.Mix64(key + uint64(i+1)*draw.Gamma)
	}
	return nil
}

// Kind is the generator kind the chooser was made from.
func (c *KeyChooser) Kind() GenKind { return c.kind }

// Hottest is the id drawn most often over n: 0 for zipf and hotspot (and
// any id for ref, which has none), n-1 for latest, the image of rank 0
// for scrambled_zipf; -1 when n < 1.
func (c *KeyChooser) Hottest(n int64) int64 {
	switch {
	case n < 1:
		return -1
	case c.kind == GenScrambledZipf:
		return int64(c.permute(0, uint64(n)))
	case c.kind == GenLatest:
		return n - 1
	}
	return 0
}

// Next draws an id in [0, n) from src (-1 when n < 1).
func (c *KeyChooser) Next(src Source, n int64) int64 {
	d := draws{src: src}
	return c.draw(&d, n)
}

// NextAt draws an id in [0, n) from the counter-based stream of (key,
// call): the same arguments give the same id, with no state carried
// between calls (-1 when n < 1).
func (c *KeyChooser) NextAt(key uint64, call int64, n int64) int64 {
	d := draws{h: draw.Mix64(key + uint64(call)*draw.Gamma)}
	return c.draw(&d, n)
}

// draws is the uniform input of one draw: a caller's Source, or
// counter-based draws of the id state h at version word ver.
type draws struct {
	src         Source
	h, ver, idx uint64
}

func (d *draws) next() uint64 {
	if d.src != nil {
		return d.src.Uint64()
	}
	u := draw.At(d.h, d.ver, d.idx)
	d.idx++
	return u
}

func (c *KeyChooser) draw(d *draws, n int64) int64 {
	if n < 1 {
		return -1
	}
	switch c.kind {
	case GenZipf:
		return c.rank(d, n)
	case GenScrambledZipf:
		return int64(c.permute(uint64(c.rank(d, n)), uint64(n)))
	case GenLatest:
		return n - 1 - c.rank(d, n)
	case GenHotspot:
		// The hot set follows n: floor(n * HotData) lowest ids. An empty
		// hot set (or cold set) takes every draw to the other one, where
		// YCSB would fail drawing from an empty interval.
		hot := int64(float64(n) * c.hotD)
		if hot == n || (hot > 0 && draw.Unit(d.next()) < c.hotOp) {
			return int64(draw.Below(d.next(), uint64(hot)))
		}
		return hot + int64(draw.Below(d.next(), uint64(n-hot)))
	}
	return int64(draw.Below(d.next(), uint64(n)))
}

// rank is a zipfian rank in [0, n), 0 the most frequent. Only
// hIntegral(n + 0.5) depends on n: a draw at another n than the
// chooser's recomputes it on a copy, which keeps the chooser read-only.
func (c *KeyChooser) rank(d *draws, n int64) int64 {
	z := c.zipf
	if fn := float64(n); fn != z.n {
		z.n = fn
		z.hIntegralN = z.hIntegral(fn + 0.5)
	}
	return z.sampleFrom(d)
}

// permute is a keyed bijection of [0, n): a balanced Feistel network
// over the smallest even number of bits holding n-1, cycle-walking
// (re-encrypting) until the value falls below n; the domain is under 4n,
// so that takes fewer than four rounds on average. A permutation rather
// than YCSB's FNV hash modulo n: a hash can send two ranks to one key
// (and leave others cold), so the hottest key's share would not be the
// zipfian share; a permutation gives every key exactly one rank's. The
// permutation is of the n of the draw: when n grows the hot keys move.
func (c *KeyChooser) permute(x, n uint64) uint64 {
	if n <= 1 {
		return 0
	}
	b := bits.Len64(n - 1)
	b += b & 1
	half := uint(b / 2)
	mask := uint64(1)<<half - 1
	for {
		l, r := x>>half, x&mask
		for _, k := range c.rounds {
			l, r = r, l^(draw.Mix64(r^k)&mask)
		}
		x = l<<half | r
		if x < n {
			return x
		}
	}
}

// sampleFrom is sample with the uniforms taken from d.
func (z *zipfSampler) sampleFrom(d *draws) int64 {
	var k float64
	for attempt := 0; attempt < maxZipfAttempts; attempt++ {
		var ok bool
		if k, ok = z.attempt(draw.Unit(d.next())); ok {
			break
		}
	}
	return int64(k) - 1
}

// scrambleKey keys the permutation of scrambled_zipf over a kind: it
// depends on the seed and the kind only, so every chooser over the kind
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
