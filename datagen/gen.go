package datagen

import (
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
)

// genComp is a Generator compiled for one attribute: parsed constants,
// cumulative tables and the attribute's random stream.
type genComp struct {
	kind  GenKind
	fill  fillKind // how the initial load writes it, decided once
	typ   ValueType
	class Class
	s     draw.Stream

	prefix, suffix string // seq
	pad            int    // seq: zero-pad the id to this many digits

	src *genComp // offset: the source attribute's generator
	fam *family  // parent, ordinal

	min  int64  // uniform, instant
	span uint64 // max - min + 1; 0 means the whole 64-bit range

	fmin, fmax, fwidth float64 // uniform_float

	cum     []float64 // weighted: running sums of the weights
	last    int       // weighted: the last choice with a positive weight
	choices []Value   // weighted

	tbase  int64      // key choosers, sample: entity id of target id 0
	tcount int64      // key choosers, sample: target count
	keys   KeyChooser // key choosers (choosers.go)

	length int // random_bytes

	minN, maxN int // sample

	p float64 // chance

	cval Value // const
}

// fillKind is a generator's path through the initial load's loop: an
// integer switch there, not a string compare per datom.
type fillKind uint8

const (
	fillOne    fillKind = iota // one value from one()
	fillSeq                    // text built in the tx's byte buffer
	fillSample                 // several refs
	fillFamily                 // parent or ordinal, from the family cursor
	fillBytes                  // random_bytes, built in the tx's byte buffer like seq
)

func fillOf(k GenKind) fillKind {
	switch k {
	case GenSeq:
		return fillSeq
	case GenSample:
		return fillSample
	case GenParent, GenOrdinal:
		return fillFamily
	case GenRandomBytes:
		return fillBytes
	}
	return fillOne
}

// seqString renders a seq value; allocation is fine off the hot path.
func (g *genComp) seqString(id int64) string {
	// Built on the stack when it fits: one allocation, the string's.
	var buf [64]byte
	return string(g.appendSeq(buf[:0], id))
}

// appendSeq appends the seq value of id to b.
func (g *genComp) appendSeq(b []byte, id int64) []byte {
	b = append(b, g.prefix...)
	if g.pad > 0 {
		var digits [20]byte
		d := strconv.AppendInt(digits[:0], id, 10)
		for i := len(d); i < g.pad; i++ {
			b = append(b, '0')
		}
		b = append(b, d...)
	} else {
		b = strconv.AppendInt(b, id, 10)
	}
	return append(b, g.suffix...)
}

// maxRandomBytes bounds a random_bytes value (1 MiB).
const maxRandomBytes = 1 << 20

// randomAlphabet is base64url's: 64 printable characters, so six bits
// of a draw make one, and none needs quoting or escaping in any loader's
// text format (no quote, backslash, comma, tab or space).
const randomAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// randomPairs maps 12 bits to two characters of randomAlphabet, so a
// 64-bit draw makes ten characters in five lookups.
var randomPairs = func() (t [4096][2]byte) {
	for i := range t {
		t[i] = [2]byte{randomAlphabet[i&63], randomAlphabet[i>>6]}
	}
	return t
}()

// appendRandom appends the random_bytes value of id at version word ver
// to b: ten characters per 64-bit draw.
func (g *genComp) appendRandom(b []byte, id int64, ver uint64) []byte {
	n := g.length
	b = slices.Grow(b, n)
	out := b[len(b) : len(b)+n]
	h := g.s.IDState(id)
	idx := uint64(0)
	for ; len(out) >= 10; idx++ {
		u := draw.At(h, ver, idx)
		o := out[:10]
		p := &randomPairs[u&4095]
		o[0], o[1] = p[0], p[1]
		p = &randomPairs[u>>12&4095]
		o[2], o[3] = p[0], p[1]
		p = &randomPairs[u>>24&4095]
		o[4], o[5] = p[0], p[1]
		p = &randomPairs[u>>36&4095]
		o[6], o[7] = p[0], p[1]
		p = &randomPairs[u>>48&4095]
		o[8], o[9] = p[0], p[1]
		out = out[10:]
	}
	if len(out) > 0 {
		u := draw.At(h, ver, idx)
		for i := range out {
			out[i] = randomAlphabet[u&63]
			u >>= 6
		}
	}
	return b[:len(b)+n]
}

// famBlock is how many parents share one prefix sum of child counts.
const famBlock = 64

// family maps the ids of a dependent entity kind to their parents: the
// children of each parent are numbered consecutively, in parent order.
type family struct {
	parent      int // the parent kind
	parentCount int64
	per         genComp // children per parent id
	prefix      []int64 // prefix[b]: children of parents [0, b*famBlock); last: the total
}

// children is how many children parent p has.
func (f *family) children(p int64) int64 {
	return f.per.one(p, 0).Int
}

// locate returns the parent of child id and its 0-based position among
// the parent's children (id must be below the child count).
func (f *family) locate(id int64) (p, pos int64) {
	b := sort.Search(len(f.prefix), func(i int) bool { return f.prefix[i] > id }) - 1
	b = max(0, min(b, len(f.prefix)-2))
	start := f.prefix[b]
	for p = int64(b) * famBlock; p < f.parentCount; p++ {
		n := f.children(p)
		if id < start+n {
			return p, id - start
		}
		start += n
	}
	return f.parentCount - 1, 0
}

// famCursor walks a family's children in ascending id order, finding
// each parent in O(1) amortised.
type famCursor struct {
	f          *family
	p          int64
	start, end int64 // child ids of parent p
	valid      bool
}

func (cu *famCursor) at(id int64) (p, pos int64) {
	if !cu.valid || id < cu.start || id > cu.end+famBlock {
		p, pos := cu.f.locate(id)
		cu.p, cu.start, cu.end, cu.valid = p, id-pos, id-pos+cu.f.children(p), true
		return p, pos
	}
	for id >= cu.end && cu.p+1 < cu.f.parentCount {
		cu.p++
		cu.start, cu.end = cu.end, cu.end+cu.f.children(cu.p)
	}
	return cu.p, id - cu.start
}

// one returns the single value of a cardinality-one generator for id at
// version word ver.
func (g *genComp) one(id int64, ver uint64) Value {
	if g.keys.dist != nil { // a key chooser of the table (choosers.go)
		return Value{Type: g.typ, Int: g.tbase + g.keys.draw(Draws{h: g.s.IDState(id), ver: ver}, g.tcount)}
	}
	switch g.kind {
	case GenSeq:
		return Value{Type: g.typ, Str: g.seqString(id)}
	case GenUniformInt, GenInstant:
		u := g.s.Draw(id, ver, 0)
		return Value{Type: g.typ, Int: g.min + int64(draw.Below(u, g.span))}
	case GenUniformFloat:
		f := g.fmin + draw.Unit(g.s.Draw(id, ver, 0))*g.fwidth
		if f >= g.fmax && g.fwidth > 0 {
			f = math.Nextafter(g.fmax, math.Inf(-1)) // rounding reached the open bound
		}
		return Value{Type: g.typ, Float: f}
	case GenWeighted:
		return g.choices[g.pick(draw.Unit(g.s.Draw(id, ver, 0)))]
	case GenRandomBytes:
		var buf [128]byte // on the stack when it fits: one allocation, the string's
		return Value{Type: g.typ, Str: string(g.appendRandom(buf[:0], id, ver))}
	case GenChance:
		var b int64
		if draw.Unit(g.s.Draw(id, ver, 0)) < g.p {
			b = 1
		}
		return Value{Type: g.typ, Int: b}
	case GenConst:
		return g.cval
	case GenParent, GenOrdinal:
		p, pos := g.fam.locate(id)
		if g.kind == GenParent {
			return Value{Type: g.typ, Int: g.tbase + p}
		}
		return Value{Type: g.typ, Int: pos + 1}
	case GenOffset:
		u := g.s.Draw(id, ver, 0)
		return Value{Type: g.typ, Int: g.src.one(id, 0).Int + g.min + int64(draw.Below(u, g.span))}
	}
	return Value{Type: g.typ}
}

// pick maps u in [0, 1) to a weighted choice by binary search over the
// cumulative table.
func (g *genComp) pick(u float64) int {
	x := u * g.cum[len(g.cum)-1]
	lo, hi := 0, len(g.cum)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x < g.cum[m] {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo > g.last {
		// u*total rounded up to total: stay on a choice with weight.
		lo = g.last
	}
	return lo
}

// sampleSize is the number of values a sample generator gives id.
func (g *genComp) sampleSize(h uint64) int {
	return g.minN + int(draw.Below(draw.At(h, 0, 0), uint64(g.maxN-g.minN+1)))
}

// sampleIDs appends the sorted distinct target ids of a sample generator
// for id to dst[:0]. Draw 0 is the size, draws 1.. the targets, re-drawn
// on collision.
func (g *genComp) sampleIDs(id int64, dst []int64) []int64 {
	dst = dst[:0]
	h := g.s.IDState(id)
	k := g.sampleSize(h)
	n := uint64(g.tcount)
	for idx := uint64(1); len(dst) < k; idx++ {
		t := int64(draw.Below(draw.At(h, 0, idx), n))
		// Insert keeping dst sorted; k is small, so linear is fine.
		i := len(dst)
		for i > 0 && dst[i-1] > t {
			i--
		}
		if i > 0 && dst[i-1] == t {
			continue
		}
		dst = append(dst, 0)
		copy(dst[i+1:], dst[i:])
		dst[i] = t
	}
	return dst
}

// values appends all values of id at version word ver (several for
// sample generators) to dst.
func (g *genComp) values(id int64, ver uint64, dst []Value, scratch []int64) ([]Value, []int64) {
	if g.kind != GenSample {
		return append(dst, g.one(id, ver)), scratch
	}
	scratch = g.sampleIDs(id, scratch)
	for _, t := range scratch {
		dst = append(dst, Value{Type: g.typ, Int: g.tbase + t})
	}
	return dst, scratch
}

// verWord packs a value version and a retry number (values that must
// differ from the previous version are re-drawn with a new retry number).
func verWord(version, retry int) uint64 {
	return uint64(version)&(maxVersions-1) | uint64(retry)<<16
}
