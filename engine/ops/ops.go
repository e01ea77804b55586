// Package ops runs a client's stream of operations: each call draws one
// operation by weight from the client's seeded random stream and runs it.
// It knows no database and no scenario kind: an operation is a Run
// function, and the weights are the stream's.
package ops

import (
	"context"
	"math/rand/v2"
)

// Run runs one operation once.
type Run func(ctx context.Context) error

// Client draws and runs operations. It is not safe for concurrent use:
// each client has its own.
type Client struct {
	cum  []float64 // cumulative weights, the last one 1
	runs []Run
	r    *rand.Rand
	// Close, when set, is called once by Close.
	OnClose func()
}

// drawSalt keeps the draws of operations apart from a query's parameter
// stream, which is seeded by (seed, client) as well.
const drawSalt = 0x6f70735f64726177 // "ops_draw"

// New returns a client drawing operation i with probability weight i over
// the sum (cum: the cumulative weights normalised to end at 1, as
// kind.Weights gives them) from its own stream of (seed, client).
func New(cum []float64, runs []Run, seed uint64, client int) *Client {
	return &Client{cum: cum, runs: runs, r: ClientRand(seed^drawSalt, client)}
}

// ClientRand is the random stream of client number client (0-based) in a
// run seeded seed. Every per-client draw derives from it, so a client
// draws the same sequence in any process; users that share a seed keep
// their draws apart by salting it.
func ClientRand(seed uint64, client int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(client)+1))
}

// Draw returns the index of the next operation.
func (c *Client) Draw() int {
	u := c.r.Float64()
	i := 0
	for i < len(c.cum)-1 && u >= c.cum[i] {
		i++
	}
	return i
}

// Call draws the next operation and runs it.
func (c *Client) Call(ctx context.Context) (int, error) {
	i := c.Draw()
	return i, c.runs[i](ctx)
}

// Close releases what the operations hold.
func (c *Client) Close() {
	if c.OnClose != nil {
		c.OnClose()
		c.OnClose = nil
	}
}
