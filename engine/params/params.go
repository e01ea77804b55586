// Package params turns a query's declared parameters into the argument
// lists of each call: constants once, pick()/picks() fresh per call from a
// per-client random source over the generator's pure value functions.
package params

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mentat-spec/mentat-spec/datagen"
)

// Kind names how a parameter's value is made.
type Kind string

const (
	// Const: the same Value every call.
	Const Kind = "const"
	// Pick: a random existing entity of Entity each call: its entity id,
	// or the value of Attr when set.
	Pick Kind = "pick"
	// Picks: N distinct random entities' Attr values, bound as a JSON
	// array text.
	Picks Kind = "picks"
	// Mark: the tx id of a dataset mark.
	Mark Kind = "mark"
)

// Spec is one parameter as the spec declared it, resolved: a constant or a
// generator. The zero Spec is the constant nil.
type Spec struct {
	Kind   Kind
	Value  any // Const: int64, float64, string, bool or nil (lists arrive as JSON text)
	Entity string
	Attr   string
	N      int
	Mark   string
}

// String describes the parameter as the spec wrote it.
func (s Spec) String() string {
	switch s.Kind {
	case Pick:
		if s.Attr == "" {
			return fmt.Sprintf("pick(%q)", s.Entity)
		}
		return fmt.Sprintf("pick(%q, %q)", s.Entity, s.Attr)
	case Picks:
		return fmt.Sprintf("picks(%q, %q, %d)", s.Entity, s.Attr, s.N)
	case Mark:
		return fmt.Sprintf("mark(%q)", s.Mark)
	}
	if str, ok := s.Value.(string); ok {
		return strconv.Quote(str)
	}
	return fmt.Sprint(s.Value)
}

// source makes one parameter's value for a call.
type source func(r *rand.Rand, scratch []datagen.Value) (any, []datagen.Value)

// Binder makes argument lists for one bound statement.
type Binder struct {
	names   []string
	sources []source
}

// New binds the parameters of a statement whose markers name params in
// order (sqltext.Bound.Names). values holds the query's params with the
// check's params (if any) merged over them.
func New(gen *datagen.Dataset, names []string, values map[string]Spec) (*Binder, error) {
	b := &Binder{names: names}
	for _, n := range names {
		v, ok := values[n]
		if !ok {
			return nil, fmt.Errorf("parameter :%s has no value: set it in the query's (or check's) params", n)
		}
		src, err := sourceFor(gen, v)
		if err != nil {
			return nil, fmt.Errorf("parameter :%s: %w", n, err)
		}
		b.sources = append(b.sources, src)
	}
	return b, nil
}

func sourceFor(gen *datagen.Dataset, pg Spec) (source, error) {
	switch pg.Kind {
	case Const, "":
		c := pg.Value
		return func(_ *rand.Rand, s []datagen.Value) (any, []datagen.Value) { return c, s }, nil
	case Mark:
		tx, ok := gen.MarkTx(pg.Mark)
		if !ok {
			return nil, fmt.Errorf("unknown mark %q", pg.Mark)
		}
		return func(_ *rand.Rand, s []datagen.Value) (any, []datagen.Value) { return tx, s }, nil
	case Pick:
		count := gen.Count(pg.Entity)
		if count <= 0 {
			return nil, fmt.Errorf("pick(%q): the dataset has no %s entities", pg.Entity, pg.Entity)
		}
		if pg.Attr == "" {
			base, err := gen.EntityID(pg.Entity, 0)
			if err != nil {
				return nil, err
			}
			return func(r *rand.Rand, s []datagen.Value) (any, []datagen.Value) { return base + r.Int64N(count), s }, nil
		}
		vf, err := gen.ValueFunc(pg.Entity, pg.Attr)
		if err != nil {
			return nil, err
		}
		// An entity's current value is a pure function of its id: up to
		// pickCacheMax entities keep theirs once computed, boxed, so a
		// measured call does not pay the generator (about 1.5 µs) nor
		// allocate for its parameter. Larger kinds compute it each time.
		var cache *pickCache
		if count <= pickCacheMax {
			cache = &pickCache{}
		}
		return func(r *rand.Rand, s []datagen.Value) (any, []datagen.Value) {
			// Retry an entity without a value (cardinality many, empty).
			for try := 0; try < 16; try++ {
				id := r.Int64N(count)
				if v, ok := cache.get(count, id); ok {
					return v, s
				}
				s = vf(id, -1, s[:0])
				if len(s) > 0 {
					v := s[0].Any()
					cache.put(id, v)
					return v, s
				}
			}
			return nil, s
		}, nil
	case Picks:
		count := gen.Count(pg.Entity)
		if int64(pg.N) > count {
			return nil, fmt.Errorf("picks(%q, %q, %d): only %d entities", pg.Entity, pg.Attr, pg.N, count)
		}
		vf, err := gen.ValueFunc(pg.Entity, pg.Attr)
		if err != nil {
			return nil, err
		}
		n := pg.N
		return func(r *rand.Rand, s []datagen.Value) (any, []datagen.Value) {
			seen := make(map[int64]struct{}, n)
			buf := make([]byte, 0, 32*n)
			buf = append(buf, '[')
			for len(seen) < n {
				id := r.Int64N(count)
				if _, dup := seen[id]; dup {
					continue
				}
				seen[id] = struct{}{}
				s = vf(id, -1, s[:0])
				if len(s) == 0 {
					continue
				}
				if len(seen) > 1 {
					buf = append(buf, ',')
				}
				buf = appendJSON(buf, s[0])
			}
			buf = append(buf, ']')
			return string(buf), s
		}, nil
	}
	return nil, fmt.Errorf("unknown parameter generator %q", pg.Kind)
}

func appendJSON(buf []byte, v datagen.Value) []byte {
	switch x := v.Any().(type) {
	case string:
		return appendJSONString(buf, x)
	case int64:
		return strconv.AppendInt(buf, x, 10)
	case float64:
		return strconv.AppendFloat(buf, x, 'g', -1, 64)
	case bool:
		return strconv.AppendBool(buf, x)
	}
	return append(buf, "null"...)
}

// Client makes argument lists for one client. It is not safe for
// concurrent use: each client has its own.
type Client struct {
	b       *Binder
	r       *rand.Rand
	args    []any
	scratch []datagen.Value
}

// Client returns a generator of argument lists with its own random source.
func (b *Binder) Client(seed uint64, client int) *Client {
	return &Client{b: b, r: rand.New(rand.NewPCG(seed, uint64(client)+1)), args: make([]any, len(b.sources))}
}

// Next returns the arguments of the next call. The slice is reused.
func (c *Client) Next() []any {
	for i, src := range c.b.sources {
		c.args[i], c.scratch = src(c.r, c.scratch)
	}
	return c.args
}

// appendJSONString quotes s as JSON (strconv.Quote's escapes are Go's).
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
		case c < 0x20:
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '"')
}

// pickCacheMax bounds the entities whose values a pick keeps: 6 MiB of
// entries per parameter at most, allocated on first use.
const pickCacheMax = 1 << 18

// pickCache holds the values of a pick's entities by id, side by side, so
// that a measured call reads its parameter from one entry rather than
// through a pointer to a box of its own; safe for the concurrent clients
// of one statement. A nil cache keeps nothing.
type pickCache struct {
	once    sync.Once
	entries []pickEntry
}

// pickEntry is one entity's value; state says whether v is written:
// entryEmpty, entryWriting (claimed by the client that fills it) or
// entryReady (v is set and never written again).
type pickEntry struct {
	state atomic.Uint32
	v     any
}

const (
	entryEmpty = iota
	entryWriting
	entryReady
)

func (c *pickCache) get(count, id int64) (any, bool) {
	if c == nil {
		return nil, false
	}
	c.once.Do(func() { c.entries = make([]pickEntry, count) })
	e := &c.entries[id]
	if e.state.Load() != entryReady {
		return nil, false
	}
	return e.v, true
}

// put keeps v for id unless another client is already keeping it.
func (c *pickCache) put(id int64, v any) {
	if c == nil {
		return
	}
	e := &c.entries[id]
	if e.state.CompareAndSwap(entryEmpty, entryWriting) {
		e.v = v
		e.state.Store(entryReady)
	}
}
