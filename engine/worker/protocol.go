// Package worker runs the clients of one benchmark point in other
// processes, on this machine or on others, and brings their measurements
// back losslessly. A coordinator (the run) hands each worker an
// assignment: the spec to rebuild the same plan from, the cell, the point
// and the worker's shard of the point's clients. The worker opens its
// clients, warms them up, waits at the barrier the coordinator opens,
// measures until the coordinator stops it, and returns one HDR histogram
// per stream with its counts and first error. The coordinator merges the
// histograms exactly.
//
// The protocol is newline-delimited JSON over the worker's stdin and
// stdout or over a TCP connection the worker opens to the coordinator;
// docs/worker-protocol.md is its reference.
package worker

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
)

// Version is the protocol version. A worker refuses an assignment of
// another version, so coordinator and workers of different builds never
// measure together. Version 3 added timed assignments: a version 2
// worker would have run one as a sampled closed-loop point. Version 4
// puts TCP behind TLS and a proof of the run's secret, and sends hashes
// of sensitive variables instead of their values: a version 3 worker
// would take anyone's assignment, and hand its own to anyone. Version 5
// adds over, the coordinator's word that its run has ended: a looping
// worker exits 0 on it alone, where a version 4 one took any failed
// redial for the end of the run.
const Version = 5

// Message types, in the order a point uses them. "w>" are sent by the
// worker, "c>" by the coordinator.
const (
	TypeHello = "hello" // w> version and pid, first line
	// TCP only, after hello: the coordinator's challenge (and its proof
	// of the secret), the worker's proof, or the refusal of a worker
	// that gave none.
	TypeChallenge = "challenge" // c> a nonce and the coordinator's proof
	TypeAuth      = "auth"      // w> the worker's proof
	TypeRefused   = "refused"   // c> authentication failed: nothing follows
	TypeAssign    = "assign"    // c> what to run
	TypeOpened    = "opened"    // w> clients open and statements prepared
	TypeRep       = "rep"       // c> warm up for the next repetition
	TypeReady     = "ready"     // w> warmed up, waiting at the barrier
	TypeStart     = "start"     // c> the barrier opens: measure
	TypeProgress  = "progress"  // w> calls so far per stream
	TypeSnapshot  = "snapshot"  // c> send the first stream's histogram so far; w> here it is
	TypeStop      = "stop"      // c> stop measuring
	TypeWindow    = "window"    // w> timed: one closed window's histograms and counts
	TypeResult    = "result"    // w> one repetition's histograms and counts
	TypeBye       = "bye"       // c> close the clients and exit
	TypeOver      = "over"      // c> instead of an assignment: the run has ended, do not dial again
	TypeError     = "error"     // w> the worker cannot go on
)

// Msg is one line of the protocol. Only the fields of its type are set.
type Msg struct {
	Type    string `json:"type"`
	Version int    `json:"version,omitempty"` // hello
	PID     int    `json:"pid,omitempty"`     // hello
	Host    string `json:"host,omitempty"`    // hello
	Loop    bool   `json:"loop,omitempty"`    // hello: the worker dials again after bye (worker -loop)
	// Nonce (hello, challenge) and Proof (challenge, auth): the TCP
	// handshake, see auth.go.
	Nonce   []byte         `json:"nonce,omitempty"`
	Proof   []byte         `json:"proof,omitempty"`
	Assign  *Assign        `json:"assign,omitempty"`  // assign
	Rep     int            `json:"rep,omitempty"`     // rep, ready, result, window
	OpenNs  int64          `json:"open_ns,omitempty"` // opened: from the assignment to open clients
	Calls   []int64        `json:"calls,omitempty"`   // progress
	Streams []StreamResult `json:"streams,omitempty"` // result; snapshot: the first stream's histogram
	Error   string         `json:"error,omitempty"`   // error, result
	// CPUNs is the worker process's CPU time during its measured window
	// (result; absent when its system does not say).
	CPUNs int64 `json:"cpu_ns,omitempty"`
	// Timed runs: a window's index (from 0) and bounds since the worker's
	// start (window), and the measured time of the whole run (result).
	Index     int   `json:"index,omitempty"`
	StartNs   int64 `json:"start_ns,omitempty"`
	EndNs     int64 `json:"end_ns,omitempty"`
	ElapsedNs int64 `json:"elapsed_ns,omitempty"`
}

// Assign is what one worker runs.
type Assign struct {
	Version int `json:"version"`
	// Worker is this worker's index among the point's workers.
	Worker int     `json:"worker"`
	Spec   SpecRef `json:"spec"`
	// The cell and point, by name and index: the worker rebuilds the plan
	// and checks that its point describes itself as Describe.
	Scale    string `json:"scale"`
	Backend  string `json:"backend"`
	Scenario string `json:"scenario"`
	Point    int    `json:"point"`
	Describe string `json:"describe"`
	// ReadOnly asks the worker to open the store read-only (the point
	// does not write and the database allows one writing process).
	ReadOnly bool         `json:"read_only,omitempty"`
	Sampling WireSampling `json:"sampling"`
	// Timed, when set, makes the assignment a timed run (sustained and
	// open-loop points): one repetition of a fixed duration that the
	// worker ends by itself, streaming its windows as they close.
	Timed   *WireTimed `json:"timed,omitempty"`
	Streams []Shard    `json:"streams"`
}

// WireTimed is measure.Timed on the wire, durations in ns.
type WireTimed struct {
	Warmup     int   `json:"warmup"`
	DurationNs int64 `json:"duration_ns"`
	WindowNs   int64 `json:"window_ns,omitempty"` // 0: one window, the whole run
	LateNs     int64 `json:"late_ns,omitempty"`
	GraceNs    int64 `json:"grace_ns,omitempty"`
	ProbeNs    int64 `json:"probe_ns,omitempty"` // the per-call ceiling; 0: none
}

// TimedToWire is t on the wire.
func TimedToWire(t measure.Timed) *WireTimed {
	return &WireTimed{Warmup: t.Warmup, DurationNs: int64(t.Duration), WindowNs: int64(t.Window),
		LateNs: int64(t.LateBound), GraceNs: int64(t.Grace), ProbeNs: int64(t.Probe)}
}

// Measure is the timed run as measure takes it.
func (t WireTimed) Measure() measure.Timed {
	return measure.Timed{Warmup: t.Warmup, Duration: time.Duration(t.DurationNs), Window: time.Duration(t.WindowNs),
		LateBound: time.Duration(t.LateNs), Grace: time.Duration(t.GraceNs), Probe: time.Duration(t.ProbeNs)}
}

// WireSampling is measure.Sampling on the wire, durations in ns.
type WireSampling struct {
	Warmup     int   `json:"warmup"`
	MinNs      int64 `json:"min_ns"`
	MinSamples int   `json:"min_samples"`
	MaxNs      int64 `json:"max_ns"`
	Reps       int   `json:"reps"`
	ProbeNs    int64 `json:"probe_ns"`
	// Precision and PrecisionP99: the coordinator stops a repetition
	// once the merged histogram's p50 (and p99) are known within them.
	Precision    float64 `json:"precision,omitempty"`
	PrecisionP99 float64 `json:"precision_p99,omitempty"`
}

// SamplingToWire is s on the wire.
func SamplingToWire(s measure.Sampling) WireSampling {
	return WireSampling{Warmup: s.Warmup, MinNs: int64(s.MinDuration), MinSamples: s.MinSamples,
		MaxNs: int64(s.MaxDuration), Reps: s.Reps, ProbeNs: int64(s.Probe), Precision: s.Precision, PrecisionP99: s.PrecisionP99}
}

// Measure is the sampling as measure takes it.
func (s WireSampling) Measure() measure.Sampling {
	return measure.Sampling{Warmup: s.Warmup, MinDuration: time.Duration(s.MinNs), MinSamples: s.MinSamples,
		MaxDuration: time.Duration(s.MaxNs), Reps: s.Reps, Probe: time.Duration(s.ProbeNs),
		Precision: s.Precision, PrecisionP99: s.PrecisionP99}
}

// SpecRef is how a worker loads the same spec as its coordinator.
type SpecRef struct {
	Paths []string `json:"paths"`
	// Vars are the coordinator's -var and -var-file arguments, less the
	// -var of sensitive variables: a worker takes those from its own
	// environment (MENTAT_SPEC_VAR_name).
	Vars    []Var  `json:"vars,omitempty"`
	DataDir string `json:"data_dir,omitempty"`
	// Sensitive are the sensitive variables' hashes (VarHash): a worker
	// whose values differ refuses the assignment, naming the variable.
	Sensitive []SensitiveVar `json:"sensitive,omitempty"`
}

// SensitiveVar is a sensitive variable on the wire: its name and the
// hash of its value in force, never the value.
type SensitiveVar struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// Var is one -var or -var-file of the coordinator's command line, in
// order.
type Var struct {
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
	File  string `json:"file,omitempty"`
}

// Shard is a worker's part of one stream: clients From..To-1 of the
// stream, each with the parameters client i would have in one process.
type Shard struct {
	// Stream is the stream's index in the point.
	Stream int      `json:"stream"`
	Op     string   `json:"op"`
	Mix    []string `json:"mix"`
	// Ops: a stream of operations (reads: writes run in the coordinator).
	Ops  []kind.Operation `json:"ops,omitempty"`
	Seed uint64           `json:"seed"`
	From int              `json:"from"`
	To   int              `json:"to"`
	// Rate (timed runs, open loop) is this shard's calls per second: the
	// stream's rate in proportion to the shard's share of its clients.
	Rate float64 `json:"rate,omitempty"`
	// OffsetNs delays the shard's schedule of intended starts so that
	// the shards' calls interleave as one process's would.
	OffsetNs int64 `json:"offset_ns,omitempty"`
}

// Clients is the shard's client count.
func (s Shard) Clients() int { return s.To - s.From }

// StreamResult is one stream of one repetition as a worker measured it.
type StreamResult struct {
	Op         string `json:"op"`
	Clients    int    `json:"clients"`
	Count      int64  `json:"count"`
	Errors     int64  `json:"errors"`
	Timeouts   int64  `json:"timeouts"`
	MaxNs      int64  `json:"max_ns"`
	FirstError string `json:"first_error,omitempty"`
	// Late and Dropped (open loop): calls started past the late bound,
	// and intended calls never started (result only).
	Late    int64 `json:"late,omitempty"`
	Dropped int64 `json:"dropped,omitempty"`
	// Hist is the HdrHistogram compressed encoding (V2, base64 in JSON) of
	// the successful calls' latencies in ns.
	Hist []byte `json:"hist"`
	// Ops: a stream of operations, one result per operation (the stream
	// itself is their total).
	Ops []StreamResult `json:"ops,omitempty"`
}

// Encode turns a measured stream into its wire form.
func Encode(r measure.Result) (StreamResult, error) {
	h := r.Hist
	if h == nil {
		h = measure.NewHistogram()
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return StreamResult{}, fmt.Errorf("encoding the %s histogram: %w", r.Op, err)
	}
	out := StreamResult{Op: r.Op, Clients: r.Clients, Count: r.Count, Errors: r.Errors, Timeouts: r.Timeouts,
		MaxNs: int64(r.Max), FirstError: r.FirstError, Late: r.Late, Dropped: r.Dropped, Hist: b}
	for _, o := range r.Ops {
		so, err := Encode(o)
		if err != nil {
			return StreamResult{}, err
		}
		out.Ops = append(out.Ops, so)
	}
	return out, nil
}

// Decode turns a stream's wire form back into a result whose histogram
// is the worker's, value for value.
func (s StreamResult) Decode() (measure.Result, error) {
	h, err := hdrhistogram.Decode(s.Hist)
	if err != nil {
		return measure.Result{}, fmt.Errorf("decoding the %s histogram: %w", s.Op, err)
	}
	if h.TotalCount() != s.Count {
		return measure.Result{}, fmt.Errorf("the %s histogram holds %d values, the count says %d", s.Op, h.TotalCount(), s.Count)
	}
	out := measure.Result{Op: s.Op, Clients: s.Clients, Count: s.Count, Errors: s.Errors, Timeouts: s.Timeouts,
		Max: time.Duration(s.MaxNs), FirstError: s.FirstError, Late: s.Late, Dropped: s.Dropped, Hist: h}
	for _, so := range s.Ops {
		o, err := so.Decode()
		if err != nil {
			return measure.Result{}, err
		}
		out.Ops = append(out.Ops, o)
	}
	return out, nil
}

// Conn is one end of the protocol: JSON lines, sends safe for concurrent
// use, receives from one goroutine.
type Conn struct {
	mu  sync.Mutex
	w   *bufio.Writer
	enc *json.Encoder
	dec *json.Decoder
	c   io.Closer
	in  *capReader
	// A worker's TCP connection: the TLS session the handshake's proofs
	// are bound to, and the credentials it proves with.
	tls   *tls.Conn
	creds *Credentials
	// loop: this worker dials again after bye, and says so in its hello.
	loop bool
	// proved: the worker checked the coordinator's proof and sent its
	// own; what follows is the coordinator's answer to a worker of its run.
	proved bool
}

// NewConn speaks the protocol over r and w; closer (may be nil) is closed
// by Close.
func NewConn(r io.Reader, w io.Writer, closer io.Closer) *Conn {
	bw := bufio.NewWriter(w)
	in := &capReader{r: r}
	return &Conn{w: bw, enc: json.NewEncoder(bw), dec: json.NewDecoder(bufio.NewReader(in)), c: closer, in: in}
}

// capReader bounds what a peer not yet authenticated can make the
// coordinator buffer (a line without end): left > 0 is what it may
// still send; 0 lifts the bound.
type capReader struct {
	r    io.Reader
	left atomic.Int64
}

var errTooLong = errors.New("the peer sent more than a handshake holds")

func (c *capReader) Read(p []byte) (int, error) {
	left := c.left.Load()
	if left == 0 {
		return c.r.Read(p)
	}
	if left < 0 {
		return 0, errTooLong
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := c.r.Read(p)
	if c.left.Add(-int64(n)) == 0 {
		c.left.Store(-1)
	}
	return n, err
}

// Send writes one message and flushes it.
func (c *Conn) Send(m Msg) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enc.Encode(m); err != nil {
		return fmt.Errorf("sending %s: %w", m.Type, err)
	}
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf("sending %s: %w", m.Type, err)
	}
	return nil
}

// Recv reads the next message; io.EOF when the other end closed.
func (c *Conn) Recv() (Msg, error) {
	var m Msg
	if err := c.dec.Decode(&m); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return m, io.EOF
		}
		return m, fmt.Errorf("reading a message: %w", err)
	}
	if m.Type == "" {
		return m, errors.New("reading a message: no type")
	}
	return m, nil
}

// Close closes the underlying connection, if any.
func (c *Conn) Close() error {
	if c.c == nil {
		return nil
	}
	return c.c.Close()
}

// inbox reads a Conn from one goroutine into a channel, closed when the
// other end goes away; err then says why.
type inbox struct {
	ch  chan Msg
	err error
	// notify, when set, is called after each message and at the end:
	// a measuring gate's wake-up (gate.Wake).
	notify atomic.Pointer[func()]
}

func newInbox(c *Conn) *inbox {
	in := &inbox{ch: make(chan Msg, 16)}
	poke := func() {
		if f := in.notify.Load(); f != nil {
			(*f)()
		}
	}
	go func() {
		defer poke()
		defer close(in.ch)
		for {
			m, err := c.Recv()
			if err != nil {
				in.err = err
				return
			}
			in.ch <- m
			poke()
		}
	}()
	return in
}

// Dial connects a worker to its coordinator over TCP and TLS; Serve then
// proves the worker holds creds' secret and checks the coordinator does.
func Dial(ctx context.Context, addr string, creds Credentials) (*Conn, error) {
	if err := CheckSecret(creds.Secret); err != nil {
		return nil, fmt.Errorf("connecting to the coordinator: %w (set %s, or give a credentials file)", err, EnvSecret)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("connecting to the coordinator: %w", err)
	}
	d := tls.Dialer{Config: creds.clientTLS(host)}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("connecting to the coordinator: %w", err)
	}
	tc := nc.(*tls.Conn)
	c := NewConn(tc, tc, tc)
	c.tls, c.creds = tc, &creds
	return c, nil
}
