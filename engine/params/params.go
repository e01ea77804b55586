// Package params turns a query's declared parameters into the argument
// lists of each call: constants once, pick()/picks() fresh per call from a
// per-client random source over the generator's pure value functions.
package params

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/zclconf/go-cty/cty"
)

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
func New(gen *datagen.Dataset, names []string, values map[string]cty.Value) (*Binder, error) {
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

func sourceFor(gen *datagen.Dataset, v cty.Value) (source, error) {
	pg, ok := config.AsParamGen(v)
	if !ok {
		c, err := config.ParamConst(v)
		if err != nil {
			return nil, err
		}
		return func(_ *rand.Rand, s []datagen.Value) (any, []datagen.Value) { return c, s }, nil
	}
	switch pg.Kind {
	case config.ParamMark:
		tx, ok := gen.MarkTx(pg.Mark)
		if !ok {
			return nil, fmt.Errorf("unknown mark %q", pg.Mark)
		}
		return func(_ *rand.Rand, s []datagen.Value) (any, []datagen.Value) { return tx, s }, nil
	case config.ParamPick:
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
		return func(r *rand.Rand, s []datagen.Value) (any, []datagen.Value) {
			// Retry an entity without a value (cardinality many, empty).
			for try := 0; try < 16; try++ {
				s = vf(r.Int64N(count), -1, s[:0])
				if len(s) > 0 {
					return s[0].Any(), s
				}
			}
			return nil, s
		}, nil
	case config.ParamPicks:
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
