package datagen

import (
	"math"
	"strconv"
)

// genComp is a Generator compiled for one attribute: parsed constants,
// cumulative tables and the attribute's random stream.
type genComp struct {
	kind  GenKind
	typ   ValueType
	class Class
	s     stream

	prefix, suffix string // seq

	min  int64  // uniform, instant
	span uint64 // max - min + 1; 0 means the whole 64-bit range

	fmin, fmax, fwidth float64 // uniform_float

	cum     []float64 // weighted: running sums of the weights
	last    int       // weighted: the last choice with a positive weight
	choices []Value   // weighted

	tbase  int64 // ref, zipf, sample: entity id of target id 0
	tcount int64 // ref, zipf, sample: target count
	zipf   zipfSampler

	minN, maxN int // sample

	p float64 // chance

	cval Value // const
}

// seqString renders a seq value; allocation is fine off the hot path.
func (g *genComp) seqString(id int64) string {
	b := make([]byte, 0, len(g.prefix)+len(g.suffix)+20)
	b = append(b, g.prefix...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, g.suffix...)
	return string(b)
}

// one returns the single value of a cardinality-one generator for id at
// version word ver.
func (g *genComp) one(id int64, ver uint64) Value {
	switch g.kind {
	case GenSeq:
		return Value{Type: g.typ, Str: g.seqString(id)}
	case GenUniformInt, GenInstant:
		u := g.s.draw(id, ver, 0)
		return Value{Type: g.typ, Int: g.min + int64(below(u, g.span))}
	case GenUniformFloat:
		f := g.fmin + unit(g.s.draw(id, ver, 0))*g.fwidth
		if f >= g.fmax && g.fwidth > 0 {
			f = math.Nextafter(g.fmax, math.Inf(-1)) // rounding reached the open bound
		}
		return Value{Type: g.typ, Float: f}
	case GenWeighted:
		return g.choices[g.pick(unit(g.s.draw(id, ver, 0)))]
	case GenRef:
		u := g.s.draw(id, ver, 0)
		return Value{Type: g.typ, Int: g.tbase + int64(below(u, uint64(g.tcount)))}
	case GenZipf:
		return Value{Type: g.typ, Int: g.tbase + g.zipf.sample(g.s.idState(id), ver)}
	case GenChance:
		var b int64
		if unit(g.s.draw(id, ver, 0)) < g.p {
			b = 1
		}
		return Value{Type: g.typ, Int: b}
	case GenConst:
		return g.cval
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
	return g.minN + int(below(drawAt(h, 0, 0), uint64(g.maxN-g.minN+1)))
}

// sampleIDs appends the sorted distinct target ids of a sample generator
// for id to dst[:0]. Draw 0 is the size, draws 1.. the targets, re-drawn
// on collision.
func (g *genComp) sampleIDs(id int64, dst []int64) []int64 {
	dst = dst[:0]
	h := g.s.idState(id)
	k := g.sampleSize(h)
	n := uint64(g.tcount)
	for idx := uint64(1); len(dst) < k; idx++ {
		t := int64(below(drawAt(h, 0, idx), n))
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
