// Package draw is datagen's counter-based randomness: a draw is a pure
// function of (seed, stream, id, version word, draw index), so nothing is
// carried from one value to the next and any id can be generated alone.
// The generator, its truth and its write generators all draw through it,
// so the same (seed, name) gives the same draws in each of them.
package draw

import "math/bits"

const (
	// Gamma is the splitmix64 increment (the golden ratio).
	Gamma   = 0x9e3779b97f4a7c15
	idxMult = 0xd1b54a32d192ed03 // odd multiplier spreading the draw word
	fnvOff  = 14695981039346656037
	fnvPrim = 1099511628211
)

// Mix64 is the splitmix64 finaliser.
func Mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// streamKey hashes (kind, name) once, at compile time, never per datom.
func streamKey(kind, name string) uint64 {
	h := uint64(fnvOff)
	for i := 0; i < len(kind); i++ {
		h = (h ^ uint64(kind[i])) * fnvPrim
	}
	h = (h ^ 0xff) * fnvPrim // separator: ("ab","c") differs from ("a","bc")
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * fnvPrim
	}
	return Mix64(h)
}

// Stream is the base state of one (seed, kind, name) random stream.
type Stream uint64

// NewStream returns the stream of (seed, kind, name).
func NewStream(seed uint64, kind, name string) Stream {
	return Stream(Mix64(streamKey(kind, name) ^ Mix64(seed+Gamma)))
}

// IDState is the per-id state of a stream: the id-th splitmix64 output.
// Callers drawing several times for one id compute it once.
func (s Stream) IDState(id int64) uint64 {
	return Mix64(uint64(s) + uint64(id)*Gamma)
}

// At is Draw for a precomputed IDState.
func At(h, ver, idx uint64) uint64 {
	return Mix64(h ^ ((ver<<32|idx)*idxMult + Gamma))
}

// Draw returns the idx-th 64-bit draw of id at version word ver.
func (s Stream) Draw(id int64, ver, idx uint64) uint64 {
	return At(s.IDState(id), ver, idx)
}

// Unit maps a draw to [0, 1) with 53 bits.
func Unit(u uint64) float64 {
	return float64(u>>11) * 0x1p-53
}

// Below maps a draw to [0, n) (Lemire's multiply-high; n == 0 means 2^64).
func Below(u, n uint64) uint64 {
	if n == 0 {
		return u
	}
	hi, _ := bits.Mul64(u, n)
	return hi
}
