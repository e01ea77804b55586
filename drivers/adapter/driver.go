// Package adapter is the driver of a store no Go driver reaches: the
// backend's `command` is an adapter program, in any language, speaking
// the adapter protocol (drivers/adapter/protocol, docs/adapter-protocol.md)
// on its standard input and output. Every engine session (each client,
// writing session, loader and checker) runs its own adapter process, as
// the seed suite ran one Store per thread: a call cut by probe_s kills only that
// process and a fresh one takes its place; an adapter that exits or
// writes garbage loses only its session, with its last stderr lines in
// the error.
package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/adapter/protocol"
)

// Name is the name the driver registers under in drivers.Default.
const Name = "adapter"

func init() { drivers.Default.MustRegister(Name, New()) }

// New returns the adapter driver.
func New() drivers.Driver { return adapterDriver{} }

type adapterDriver struct{}

// Options: command (an argv list, or one program path), env (a map of
// variables added to the engine's environment), dir (the adapter's
// working directory), path (the store, sent with open) and dialect (the
// SQL text a query picks; "adapter" by default, so a query's default).
var optionNames = []string{"command", "env", "dir", "path", "dialect"}

func (adapterDriver) OptionNames() []string { return append([]string(nil), optionNames...) }

// Dialect is "adapter": queries without an adapter text use their
// default; a backend's dialect option picks another.
func (adapterDriver) Dialect() string { return "adapter" }

// WritingConnections implements drivers.WriteLimiter for a caller
// without the backend's options: one writing session, which every store
// can take.
func (adapterDriver) WritingConnections() int { return 1 }

// WritingConnectionsFor implements drivers.OptionsWriteLimiter: as many
// writing sessions as the adapter's hello declares (capabilities.writers;
// 0, any number, is no limit). A stream asking more writers shares that
// many, as on SQLite, and plan says so with the hello; an adapter that
// does not answer its hello gets one, and the note says why.
func (adapterDriver) WritingConnectionsFor(options map[string]string) (int, string) {
	sp, err := parseSpec(options)
	if err != nil {
		return 1, "adapter: " + err.Error()
	}
	h, err := cachedHello(context.Background(), sp)
	if err != nil {
		return 1, fmt.Sprintf("the adapter did not answer its hello (%v), so one", err)
	}
	if h.Capabilities.Writers <= 0 {
		return 0, fmt.Sprintf("adapter %s %s says writers = 0 (any number) at hello", h.Name, h.Version)
	}
	return h.Capabilities.Writers, fmt.Sprintf("adapter %s %s says writers = %d at hello", h.Name, h.Version, h.Capabilities.Writers)
}

// ValidateConfig implements drivers.ConfigValidator.
func (adapterDriver) ValidateConfig(cfg drivers.Config) error {
	_, err := parseSpec(cfg.Options)
	return err
}

// parseSpec reads command, env and dir. A list or map option reaches a
// driver as JSON.
func parseSpec(opts map[string]string) (spec, error) {
	var s spec
	c := strings.TrimSpace(opts["command"])
	switch {
	case c == "":
		return s, fmt.Errorf(`an adapter backend needs command = ["program", "arg", ...]`)
	case strings.HasPrefix(c, "["):
		if err := json.Unmarshal([]byte(c), &s.argv); err != nil || len(s.argv) == 0 || s.argv[0] == "" {
			return s, fmt.Errorf("command: want a non-empty list of strings (argv)")
		}
	default:
		s.argv = []string{c}
	}
	if e := opts["env"]; e != "" {
		var m map[string]string
		if err := json.Unmarshal([]byte(e), &m); err != nil {
			return s, fmt.Errorf("env: want a map of strings: %v", err)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				return s, fmt.Errorf("env: %q is not a variable name", k)
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s.env = append(s.env, k+"="+m[k])
		}
	}
	s.dir = opts["dir"]
	return s, nil
}

// Open starts the backend's own adapter (role admin), which opens or
// creates the store; a store it created gets cfg.Init.
func (adapterDriver) Open(ctx context.Context, cfg drivers.Config) (drivers.Backend, error) {
	sp, err := parseSpec(cfg.Options)
	if err != nil {
		return nil, fmt.Errorf("adapter backend %q: %w", cfg.Backend, err)
	}
	path, err := storePath(cfg)
	if err != nil {
		return nil, fmt.Errorf("adapter backend %q: %w", cfg.Backend, err)
	}
	b := &backend{name: cfg.Backend, spec: sp, path: path, settings: cfg.Settings,
		dialect: cfg.Options["dialect"], stats: newStats()}
	if b.dialect == "" {
		b.dialect = "adapter"
	}
	b.options = map[string]string{}
	for k, v := range cfg.Options {
		if k != "command" && k != "env" && k != "dir" && k != "path" {
			b.options[k] = v
		}
	}
	// The admin adapter opens (or creates) the store and marks one it
	// created as the engine's; it then ends: the engine's own sessions
	// are adapters of their own.
	admin, err := b.openSession(ctx, protocol.RoleAdmin)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	b.created = b.firstCreated
	if b.created {
		for _, q := range cfg.Init {
			if err := admin.Exec(ctx, q); err != nil {
				return nil, fmt.Errorf("adapter backend %q: initialising the store it created: %w", b.name, err)
			}
		}
	}
	return b, nil
}

type backend struct {
	name     string
	spec     spec
	path     string
	settings map[string]string
	options  map[string]string
	dialect  string

	mu           sync.Mutex
	hello        *protocol.Reply // the first adapter's hello
	helloSeen    bool
	firstCreated bool
	created      bool

	timeouts atomic.Int64 // calls cut by their context
	restarts atomic.Int64 // adapters started in place of a cut one
	stats    *stats
	// the counts at the statements log's reset
	timeoutsBase, restartsBase atomic.Int64
}

// sawHello records the first adapter's hello and whether its open
// created the store.
func (b *backend) sawHello(h *protocol.Reply, created bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.helloSeen {
		b.hello, b.helloSeen, b.firstCreated = h, true, created
	}
}

func (b *backend) Dialect() string { return b.dialect }

// Placeholder is "?" unless the adapter's hello said "$1".
func (b *backend) Placeholder(i int) string {
	if b.hello != nil && b.hello.Placeholder == "$1" {
		return fmt.Sprintf("$%d", i)
	}
	return "?"
}

func (b *backend) Created() bool { return b.created }

// Session opens an adapter in the role ctx carries (drivers.WithRole):
// client unless the engine says reader, writer, loader or checker.
func (b *backend) Session(ctx context.Context) (drivers.Session, error) {
	return b.openSession(ctx, protocolRole(drivers.SessionRole(ctx)))
}

// protocolRole is the open message's role of an engine session's role;
// one the protocol does not name is a client.
func protocolRole(r drivers.Role) string {
	switch r {
	case drivers.RoleReader:
		return protocol.RoleReader
	case drivers.RoleWriter:
		return protocol.RoleWriter
	case drivers.RoleLoader:
		return protocol.RoleLoader
	case drivers.RoleChecker:
		return protocol.RoleChecker
	}
	return protocol.RoleClient
}

// ReaderSession implements drivers.ReaderSessions: the same adapter, told
// its role is reader.
func (b *backend) ReaderSession(ctx context.Context) (drivers.Session, error) {
	return b.openSession(ctx, protocol.RoleReader)
}

// Close has nothing to release: every session closes its own adapter.
func (b *backend) Close() error { return nil }

// Version implements drivers.Versioner.
func (b *backend) Version(ctx context.Context) (string, error) {
	return fmt.Sprintf("%s %s (adapter protocol %s)", b.hello.Name, b.hello.Version, b.hello.Protocol), nil
}

// EnvFacts implements drivers.EnvReporter: the adapter's command and its
// hello.
func (b *backend) EnvFacts(ctx context.Context) ([]drivers.Fact, error) {
	h := b.hello
	c := h.Capabilities
	facts := []drivers.Fact{
		{Key: "adapter.command", Value: b.spec.String()},
		{Key: "adapter.name", Value: h.Name},
		{Key: "adapter.version", Value: h.Version},
		{Key: "adapter.protocol", Value: h.Protocol},
		{Key: "adapter.capabilities", Value: Capabilities(c)},
		{Key: "adapter.path", Value: b.path},
	}
	keys := make([]string, 0, len(h.Info))
	for k := range h.Info {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		facts = append(facts, drivers.Fact{Key: "adapter.info." + k, Value: h.Info[k]})
	}
	return facts, nil
}

// Capabilities says what an adapter declared at hello, in one line.
func Capabilities(c protocol.Capabilities) string {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	w := "any number"
	if c.Writers > 0 {
		w = fmt.Sprint(c.Writers)
	}
	return fmt.Sprintf("transactions %s, writers %s, cancel %s, store time %s, load %s",
		yes(c.Transactions), w, yes(c.Cancel), yes(c.StoreTime), yes(c.Load))
}

// Describe implements drivers.Describer: the adapter's command and what
// its hello declares. It opens no store; an adapter that does not start
// or answer says so in the lines, never as an error of the plan.
func (adapterDriver) Describe(ctx context.Context, options map[string]string) []string {
	sp, err := parseSpec(options)
	if err != nil {
		return []string{"adapter: " + err.Error()}
	}
	lines := []string{"adapter: " + sp.String()}
	h, err := cachedHello(ctx, sp)
	if err != nil {
		return append(lines, "adapter hello: "+err.Error())
	}
	return append(lines, fmt.Sprintf("adapter hello: %s %s, protocol %s; %s", h.Name, h.Version, h.Protocol, Capabilities(h.Capabilities)))
}

// hellos are the hellos plan has read, by command: its description of a
// backend and its note on each scenario's writes start the adapter once.
var hellos sync.Map // spec.String() + env + dir -> *helloResult

type helloResult struct {
	once sync.Once
	h    *protocol.Reply
	err  error
}

// cachedHello is helloOnly, once per command, environment and directory
// in this process.
func cachedHello(ctx context.Context, sp spec) (*protocol.Reply, error) {
	key := strings.Join(append(append([]string{sp.dir}, sp.env...), sp.argv...), "\x00")
	v, _ := hellos.LoadOrStore(key, &helloResult{})
	r := v.(*helloResult)
	r.once.Do(func() { r.h, r.err = helloOnly(ctx, sp) })
	return r.h, r.err
}

// helloOnly starts an adapter, reads its hello and closes it.
func helloOnly(ctx context.Context, sp spec) (*protocol.Reply, error) {
	b := &backend{name: "plan", spec: sp, stats: newStats()}
	s := &session{b: b}
	p, err := start(sp)
	if err != nil {
		return nil, err
	}
	s.p = p
	defer p.close()
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	h, err := s.request(ctx, protocol.Request{Op: "hello", Protocol: protocol.Version})
	if err != nil {
		return nil, err
	}
	if err := protocol.CheckVersion(h.Protocol); err != nil {
		return nil, err
	}
	return h, nil
}
