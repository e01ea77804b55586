package worker

import "github.com/mentat-spec/mentat-spec/engine/kind"

// PointStream is one stream of a point as the coordinator splits it.
type PointStream struct {
	Op      string
	Mix     []string
	Ops     []kind.Operation
	Seed    uint64
	Clients int
	// Rate (open loop): the stream's calls per second, split over the
	// shards in proportion to their clients.
	Rate float64
}

// Split hands the clients of streams to n workers in contiguous blocks
// of equal size (the first ones one client larger when it does not
// divide), as pgbench -j splits its clients over threads. Client i of a
// stream keeps index i, so its parameters are the ones it has in one
// process. n is capped at the client count; each worker's shards carry
// their stream's index in Stream, and an open-loop stream's rate is
// split in proportion to the clients.
func Split(streams []PointStream, n int) [][]Shard {
	total := 0
	for _, st := range streams {
		total += st.Clients
	}
	n = min(n, total)
	if n < 1 {
		return nil
	}
	out := make([][]Shard, n)
	w, left := 0, blockSize(total, n, 0)
	for si, st := range streams {
		i := 0
		for i < st.Clients {
			take := min(left, st.Clients-i)
			sh := Shard{Stream: si, Op: st.Op, Mix: st.Mix, Ops: st.Ops, Seed: st.Seed, From: i, To: i + take}
			if st.Rate > 0 {
				// Shard k of n equal ones calls at Rate/n from k/Rate on:
				// together the calls are due every 1/Rate, as in one
				// process (i/Rate for the shard starting at client i).
				sh.Rate = st.Rate * float64(take) / float64(st.Clients)
				sh.OffsetNs = int64(float64(i) / float64(take) / st.Rate * 1e9)
			}
			out[w] = append(out[w], sh)
			i += take
			left -= take
			if left == 0 && w+1 < n {
				w++
				left = blockSize(total, n, w)
			}
		}
	}
	return out
}

func blockSize(total, n, w int) int {
	s := total / n
	if w < total%n {
		s++
	}
	return s
}
