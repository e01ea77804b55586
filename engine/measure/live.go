package measure

import (
	"context"
	"math"
	"math/bits"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Live is a point's calls as they happen, for a live view (the progress
// lines, pgbench -P's): per stream, calls counted by latency bucket and
// errors, each call one atomic add on its client's own counters. It is
// approximate by design (buckets 1/16 of a power of two wide: a quantile
// within 6.25%); the rows keep the exact histograms.
type Live struct {
	mu      sync.Mutex
	streams map[int]*liveStream
	names   map[int]string
}

type liveStream struct {
	clients []*LiveCounts
}

// LiveCounts is one client's counters of one stream.
type LiveCounts struct {
	_       [64]byte
	buckets [liveBuckets]atomic.Int64
	errs    atomic.Int64
}

const (
	liveSubBits = 4 // 16 sub-buckets per power of two
	liveBuckets = (64 - liveSubBits + 1) << liveSubBits
)

type liveKey struct{}

// WithLive returns ctx carrying l: the points run with it count their
// calls into l.
func WithLive(ctx context.Context, l *Live) context.Context {
	return context.WithValue(ctx, liveKey{}, l)
}

func liveFrom(ctx context.Context) *Live {
	l, _ := ctx.Value(liveKey{}).(*Live)
	return l
}

// NewLive returns an empty Live.
func NewLive() *Live { return &Live{streams: map[int]*liveStream{}, names: map[int]string{}} }

// client adds a client of stream i (named name) and returns its counters.
func (l *Live) client(i int, name string) *LiveCounts {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.streams[i]
	if s == nil {
		s = &liveStream{}
		l.streams[i] = s
		l.names[i] = name
	}
	c := &LiveCounts{}
	s.clients = append(s.clients, c)
	return c
}

// Reset forgets every stream: the next point starts from nothing.
func (l *Live) Reset() {
	l.mu.Lock()
	l.streams, l.names = map[int]*liveStream{}, map[int]string{}
	l.mu.Unlock()
}

func liveBucket(ns int64) int {
	if ns < 1<<liveSubBits {
		return int(max(ns, 0))
	}
	u := uint64(ns)
	e := bits.Len64(u) - 1 - liveSubBits // >= 0
	return (e+1)<<liveSubBits | int(u>>uint(e))&(1<<liveSubBits-1)
}

// liveBucketMid is the middle of bucket b, in ns.
func liveBucketMid(b int) float64 {
	if b < 1<<liveSubBits {
		return float64(b)
	}
	e := b>>liveSubBits - 1
	lo := float64(uint64(1<<liveSubBits|b&(1<<liveSubBits-1)) << uint(e))
	return lo + math.Ldexp(1, e)/2
}

// Record counts one successful call of lat.
func (c *LiveCounts) Record(lat time.Duration) {
	if c != nil {
		c.buckets[liveBucket(int64(lat))].Add(1)
	}
}

// Error counts one failed call.
func (c *LiveCounts) Error() {
	if c != nil {
		c.errs.Add(1)
	}
}

// LiveSnapshot is one stream's counts at a moment.
type LiveSnapshot struct {
	Name    string
	Buckets []int64
	Errors  int64
}

// Snapshot sums each stream's clients, in stream order.
func (l *Live) Snapshot() []LiveSnapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	idx := make([]int, 0, len(l.streams))
	for i := range l.streams {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]LiveSnapshot, 0, len(idx))
	for _, i := range idx {
		sn := LiveSnapshot{Name: l.names[i], Buckets: make([]int64, liveBuckets)}
		for _, c := range l.streams[i].clients {
			for b := range c.buckets {
				sn.Buckets[b] += c.buckets[b].Load()
			}
			sn.Errors += c.errs.Load()
		}
		out = append(out, sn)
	}
	return out
}

// Interval is what a stream did between two snapshots.
type Interval struct {
	Name     string
	Calls    int64 // successful calls
	Errors   int64
	P50, P99 time.Duration // 0 without calls
}

// Since is the stream's interval from prev (a snapshot of the same
// stream taken earlier; the zero value for the first).
func (s LiveSnapshot) Since(prev LiveSnapshot) Interval {
	iv := Interval{Name: s.Name, Errors: s.Errors - prev.Errors}
	d := make([]int64, len(s.Buckets))
	for b, n := range s.Buckets {
		if b < len(prev.Buckets) {
			n -= prev.Buckets[b]
		}
		d[b] = n
		iv.Calls += n
	}
	if iv.Calls == 0 {
		return iv
	}
	iv.P50 = time.Duration(liveQuantile(d, iv.Calls, 0.5))
	iv.P99 = time.Duration(liveQuantile(d, iv.Calls, 0.99))
	return iv
}

func liveQuantile(d []int64, n int64, q float64) float64 {
	rank := int64(math.Ceil(q * float64(n)))
	var seen int64
	for b, c := range d {
		seen += c
		if seen >= rank {
			return liveBucketMid(b)
		}
	}
	return 0
}
