package kind

import (
	"context"
	"fmt"

	"github.com/mentat-spec/mentat-spec/engine/measure"
)

// Closer is a client to close once its point is done.
type Closer interface{ Close() }

// Opener opens clients: an Env, or a worker process's cell.
type Opener interface {
	OpenClient(ctx context.Context, mix []string, index int, seed uint64) (Client, error)
}

// OpenStream opens clients from..to-1 of a stream as one measure.Stream:
// each client calls its mix back to back, or with ops draws one of them
// per call (the opener must then implement OpEnv's OpenOps). On an error
// the clients opened so far are closed.
func OpenStream(ctx context.Context, o Opener, op string, mix []string, ops []Operation, from, to int, seed uint64) (measure.Stream, []Closer, error) {
	st := measure.Stream{Op: op}
	var closers []Closer
	fail := func(err error) (measure.Stream, []Closer, error) {
		for _, c := range closers {
			c.Close()
		}
		return measure.Stream{}, nil, err
	}
	var oo opsOpener
	if len(ops) > 0 {
		var ok bool
		if oo, ok = o.(opsOpener); !ok {
			return fail(fmt.Errorf("stream %s: this runner cannot run operations", op))
		}
		st.Ops = OperationNames(ops)
	}
	for i := from; i < to; i++ {
		if len(ops) > 0 {
			cl, err := oo.OpenOps(ctx, ops, i, seed)
			if err != nil {
				return fail(err)
			}
			closers = append(closers, cl)
			st.OpCalls = append(st.OpCalls, cl.Call)
			continue
		}
		cl, err := o.OpenClient(ctx, mix, i, seed)
		if err != nil {
			return fail(err)
		}
		closers = append(closers, cl)
		st.Calls = append(st.Calls, cl.Call)
	}
	return st, closers, nil
}

type opsOpener interface {
	OpenOps(ctx context.Context, ops []Operation, index int, seed uint64) (OpClient, error)
}

// StreamQueries lists the queries a stream runs as reads (its mix, or its
// operations' read queries and read-modify-write reads), for validation
// and EXPLAIN; a write's statements take the write's parameters and are
// not run as reads.
func StreamQueries(mix []string, ops []Operation) []string {
	if len(ops) == 0 {
		return mix
	}
	var out []string
	for _, o := range ops {
		if !o.IsWrite() {
			out = append(out, o.Query)
		}
	}
	return out
}

// WriteQueries lists the queries of a stream's write operations
// (statements and read-modify-write reads).
func WriteQueries(ops []Operation) []string {
	var out []string
	for _, o := range ops {
		if o.IsWrite() {
			out = append(out, o.Query)
			if o.Read != "" {
				out = append(out, o.Read)
			}
		}
	}
	return out
}

// OpsWrite reports whether any of ops writes.
func OpsWrite(ops []Operation) bool {
	for _, o := range ops {
		if o.IsWrite() {
			return true
		}
	}
	return false
}

// DescribeStream is a stream's text in plan: its mix joined by +, or its
// operations with their shares.
func DescribeStream(mix []string, ops []Operation) string {
	if len(ops) == 0 {
		return joinPlus(mix)
	}
	var sum float64
	for _, o := range ops {
		sum += o.Weight
	}
	s := ""
	for i, o := range ops {
		if i > 0 {
			s += " | "
		}
		what := o.Query
		switch {
		case o.Read != "":
			what = fmt.Sprintf("read %s, write %s (%s)", o.Read, o.Write, o.Query)
		case o.Write != "":
			what = fmt.Sprintf("write %s (%s)", o.Write, o.Query)
		}
		s += fmt.Sprintf("%s %.4g%% %s", o.Name, 100*o.Weight/sum, what)
	}
	return "[" + s + "]"
}

func joinPlus(l []string) string {
	s := ""
	for i, x := range l {
		if i > 0 {
			s += "+"
		}
		s += x
	}
	return s
}

// OpGenerators lists the write generators of ops, each once.
func OpGenerators(ops []Operation) []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range ops {
		if o.Write != "" && !seen[o.Write] {
			seen[o.Write] = true
			out = append(out, o.Write)
		}
	}
	return out
}

// StreamSeed is the seed of stream si of a point: its clients' random
// streams are drawn from (StreamSeed, client index).
func StreamSeed(seed uint64, si int) uint64 { return seed + uint64(si)*7919 }
