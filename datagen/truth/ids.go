package truth

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
)

// IDHeadLen is how many of the smallest ids an id set keeps, so a check
// can show the first difference; the rest of the set is its fingerprint.
const IDHeadLen = 10

// IDHash is an order-independent fingerprint of a set of entity ids: the
// sum, modulo 2^64, of a 64-bit mix of each id. Memory stays constant
// whatever the set's size, and a set differing by even one id (e + 1 in
// place of e) has another fingerprint with overwhelming probability.
type IDHash uint64

// IDSet is the set of entity ids a counting truth counted: its size, its
// fingerprint and its smallest ids in ascending order.
type IDSet struct {
	N    int64
	Hash IDHash
	Head []int64
}

// idMix spreads one id for the fingerprint.
func idMix(e int64) IDHash { return IDHash(draw.Mix64(uint64(e) ^ 0x5bd1e9955bd1e995)) }

// MarshalJSON writes {"n": N, "hash": "<16 hex digits>", "head": [...]}:
// the hash as text, since JSON numbers lose 64-bit precision.
func (s IDSet) MarshalJSON() ([]byte, error) {
	head := s.Head
	if head == nil {
		head = []int64{}
	}
	return json.Marshal(struct {
		N    int64   `json:"n"`
		Hash string  `json:"hash"`
		Head []int64 `json:"head"`
	}{s.N, fmt.Sprintf("%016x", uint64(s.Hash)), head})
}

// IDSetOf is the id set of ids (duplicates count once), keeping the head
// smallest ids.
func IDSetOf(ids []int64, head int) IDSet {
	sorted := append([]int64(nil), ids...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a] < sorted[b] })
	var acc idAcc
	for i, e := range sorted {
		if i > 0 && sorted[i-1] == e {
			continue
		}
		acc.n++
		acc.hash += idMix(e)
		if len(acc.head) < head {
			acc.head = append(acc.head, e)
		}
	}
	return acc.set()
}

// idAcc accumulates an id set during a scan.
type idAcc struct {
	n    int64
	hash IDHash
	head []int64 // ascending, at most IDHeadLen
}

// add records e; a scan gives each accumulator ascending ids, so the
// head fills with the smallest.
func (a *idAcc) add(e int64) {
	a.n++
	a.hash += idMix(e)
	if len(a.head) < IDHeadLen {
		a.head = append(a.head, e)
	} else if e < a.head[IDHeadLen-1] {
		a.head[IDHeadLen-1] = e
		sort.Slice(a.head, func(i, j int) bool { return a.head[i] < a.head[j] })
	}
}

// merge adds b's ids (disjoint from a's) to a.
func (a *idAcc) merge(b *idAcc) {
	a.n += b.n
	a.hash += b.hash
	a.head = append(a.head, b.head...)
	sort.Slice(a.head, func(i, j int) bool { return a.head[i] < a.head[j] })
	if len(a.head) > IDHeadLen {
		a.head = a.head[:IDHeadLen]
	}
}

func (a *idAcc) set() IDSet {
	return IDSet{N: a.n, Hash: a.hash, Head: append([]int64{}, a.head...)}
}
