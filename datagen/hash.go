package datagen

import "math/bits"

// Counter-based randomness: a draw is a pure function of (seed, stream,
// id, version word, draw index), so nothing is carried from one value to
// the next and any id can be generated alone.

const (
	gamma   = 0x9e3779b97f4a7c15 // splitmix64 increment (golden ratio)
	idxMult = 0xd1b54a32d192ed03 // odd multiplier spreading the draw word
	fnvOff  = 14695981039346656037
	fnvPrim = 1099511628211
)

// mix64 is the splitmix64 finaliser.
func mix64(z uint64) uint64 {
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
	return mix64(h)
}

// stream is the base state of one (seed, kind, name) random stream.
type stream uint64

func newStream(seed uint64, kind, name string) stream {
	return stream(mix64(streamKey(kind, name) ^ mix64(seed+gamma)))
}

// idState is the per-id state of a stream: the id-th splitmix64 output.
// Callers drawing several times for one id compute it once.
func (s stream) idState(id int64) uint64 {
	return mix64(uint64(s) + uint64(id)*gamma)
}

// verWord packs a value version and a retry number (values that must
// differ from the previous version are re-drawn with a new retry number).
func verWord(version, retry int) uint64 {
	return uint64(version)&(maxVersions-1) | uint64(retry)<<16
}

// drawAt is draw for a precomputed idState.
func drawAt(h, ver, idx uint64) uint64 {
	return mix64(h ^ ((ver<<32|idx)*idxMult + gamma))
}

// draw returns the idx-th 64-bit draw of id at version word ver.
func (s stream) draw(id int64, ver, idx uint64) uint64 {
	return drawAt(s.idState(id), ver, idx)
}

// unit maps a draw to [0, 1) with 53 bits.
func unit(u uint64) float64 {
	return float64(u>>11) * 0x1p-53
}

// below maps a draw to [0, n) (Lemire's multiply-high; n == 0 means 2^64).
func below(u, n uint64) uint64 {
	if n == 0 {
		return u
	}
	hi, _ := bits.Mul64(u, n)
	return hi
}
