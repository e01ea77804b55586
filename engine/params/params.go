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
	"github.com/mentat-spec/mentat-spec/engine/ops"
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
	// Range: a whole number uniform in [Min, Max] each call (a scan
	// length, say).
	Range Kind = "range"
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
	// Chooser (Pick) draws the entity: a key chooser generator over
	// Entity (datagen.IsKeyChooser); nil draws uniformly. A pointer keeps
	// Spec comparable.
	Chooser  *datagen.Generator
	Min, Max int64 // Range
}

// String describes the parameter as the spec wrote it.
func (s Spec) String() string {
	switch s.Kind {
	case Pick:
		what := strconv.Quote(s.Entity)
		if s.Chooser != nil {
			what = ChooserString(*s.Chooser)
		}
		if s.Attr == "" {
			return fmt.Sprintf("pick(%s)", what)
		}
		return fmt.Sprintf("pick(%s, %q)", what, s.Attr)
	case Range:
		return fmt.Sprintf("uniform(%d, %d)", s.Min, s.Max)
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

// ChooserString is a key chooser generator as the spec writes it.
func ChooserString(g datagen.Generator) string {
	if c, ok := datagen.LookupChooser(g.Kind); ok {
		return c.String(g)
	}
	return fmt.Sprintf("%s(%q)", g.Kind, g.Target)
}

// Live gives the number of entities of a kind visible now: the loaded
// count plus the inserts committed so far. Count returns nil for a kind
// it does not follow; the returned function is called once per draw, from
// every client at once.
type Live interface {
	Count(kind string) func() int64
}

// Option changes how New binds.
type Option func(*options)

type options struct{ live Live }

// WithLive makes pick() draw over the live entity counts of l instead of
// the dataset's loaded counts: ids past the loaded ones are inserted
// entities, and their entity ids continue the loaded ones'.
func WithLive(l Live) Option { return func(o *options) { o.live = l } }

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
func New(gen *datagen.Dataset, names []string, values map[string]Spec, opts ...Option) (*Binder, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	b := &Binder{names: names}
	for _, n := range names {
		v, ok := values[n]
		if !ok {
			return nil, fmt.Errorf("parameter :%s has no value: set it in the query's (or check's) params", n)
		}
		src, err := sourceFor(gen, v, &o)
		if err != nil {
			return nil, fmt.Errorf("parameter :%s: %w", n, err)
		}
		b.sources = append(b.sources, src)
	}
	return b, nil
}

func sourceFor(gen *datagen.Dataset, pg Spec, o *options) (source, error) {
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
	case Range:
		if pg.Max < pg.Min {
			return nil, fmt.Errorf("uniform(%d, %d): max is below min", pg.Min, pg.Max)
		}
		lo, span := pg.Min, uint64(pg.Max)-uint64(pg.Min)+1
		return func(r *rand.Rand, s []datagen.Value) (any, []datagen.Value) {
			if span == 0 { // [MinInt64, MaxInt64]
				return int64(r.Uint64()), s
			}
			return lo + int64(r.Uint64N(span)), s
		}, nil
	case Pick:
		if pg.Chooser != nil && pg.Entity != "" && pg.Entity != pg.Chooser.Target {
			return nil, fmt.Errorf("%s: the chooser draws %s entities, not %s", pg, pg.Chooser.Target, pg.Entity)
		}
		if pg.Chooser != nil {
			pg.Entity = pg.Chooser.Target
		}
		draw, count, err := pickDraw(gen, pg, o)
		if err != nil {
			return nil, err
		}
		if pg.Attr == "" {
			base, err := entityBase(gen, pg.Entity)
			if err != nil {
				return nil, err
			}
			return func(r *rand.Rand, s []datagen.Value) (any, []datagen.Value) { return base + draw(r), s }, nil
		}
		vf, err := gen.ValueFunc(pg.Entity, pg.Attr)
		if err != nil {
			return nil, err
		}
		// An entity's current value is a pure function of its id: up to
		// pickCacheMax entities keep theirs once computed, boxed, so a
		// measured call does not pay the generator (about 1.5 µs) nor
		// allocate for its parameter. Larger kinds compute it each time.
		// The cache holds the loaded entities only: inserted ones (ids
		// from count on) are computed each time.
		var cache *pickCache
		if count <= pickCacheMax {
			cache = &pickCache{size: count}
		}
		return func(r *rand.Rand, s []datagen.Value) (any, []datagen.Value) {
			// Retry an entity without a value (cardinality many, empty; an
			// inserted entity whose values the generator does not give).
			for try := 0; try < 16; try++ {
				id := draw(r)
				if v, ok := cache.get(id); ok {
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
		if pg.Chooser != nil {
			return nil, fmt.Errorf("picks(%q, %q, %d): picks draws uniformly, it takes a kind, not a chooser", pg.Entity, pg.Attr, pg.N)
		}
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

// entityBase is the entity id of id 0 of kind: ids past the loaded count
// (inserted entities) continue from it, so it is computed here rather
// than asked of EntityID, which knows the loaded ids only.
func entityBase(gen *datagen.Dataset, kind string) (int64, error) {
	for k := range gen.Entities {
		if gen.Entities[k].Name == kind {
			return int64(k+1) * datagen.EntityBase, nil
		}
	}
	return 0, fmt.Errorf("datagen: unknown entity %q", kind)
}

// pickDraw returns how a pick draws an entity's id (0-based within its
// kind) and the kind's loaded count. Over a static count a uniform pick
// (a kind, or ref(kind)) draws r.Int64N(count) as it always has; a live
// count is read at every draw.
func pickDraw(gen *datagen.Dataset, pg Spec, o *options) (func(*rand.Rand) int64, int64, error) {
	count := gen.Count(pg.Entity)
	var live func() int64
	if o.live != nil {
		live = o.live.Count(pg.Entity)
	}
	if count <= 0 && (live == nil || live() <= 0) {
		what := fmt.Sprintf("pick(%q)", pg.Entity)
		if pg.Chooser != nil {
			what = fmt.Sprintf("pick(%s)", ChooserString(*pg.Chooser))
		}
		return nil, 0, fmt.Errorf("%s: the dataset has no %s entities", what, pg.Entity)
	}
	uniform := pg.Chooser == nil // a kind, or ref(kind): the drawer's own uniform draw
	if !uniform {
		c, _ := datagen.LookupChooser(pg.Chooser.Kind)
		uniform = c.Uniform
	}
	if uniform {
		if live == nil {
			return func(r *rand.Rand) int64 { return r.Int64N(count) }, count, nil
		}
		return func(r *rand.Rand) int64 { return r.Int64N(max(live(), 1)) }, count, nil
	}
	kc, err := gen.KeyChooser(*pg.Chooser)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", pg, err)
	}
	if live == nil {
		return func(r *rand.Rand) int64 { return kc.Next(r, count) }, count, nil
	}
	return func(r *rand.Rand) int64 { return kc.Next(r, max(live(), 1)) }, count, nil
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
	return &Client{b: b, r: ops.ClientRand(seed, client), args: make([]any, len(b.sources))}
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
	size    int64 // the loaded count; ids from it on are not kept
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

func (c *pickCache) get(id int64) (any, bool) {
	if c == nil {
		return nil, false
	}
	c.once.Do(func() { c.entries = make([]pickEntry, c.size) })
	if id < 0 || id >= int64(len(c.entries)) {
		return nil, false
	}
	e := &c.entries[id]
	if e.state.Load() != entryReady {
		return nil, false
	}
	return e.v, true
}

// put keeps v for id unless another client is already keeping it; get
// has run first, so entries is made.
func (c *pickCache) put(id int64, v any) {
	if c == nil || id < 0 || id >= int64(len(c.entries)) {
		return
	}
	e := &c.entries[id]
	if e.state.CompareAndSwap(entryEmpty, entryWriting) {
		e.v = v
		e.state.Store(entryReady)
	}
}
