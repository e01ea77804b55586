package datagen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// Chooser is one key-chooser distribution: the HCL function that names it
// (Kind, an entity and Params), the parameter drawer's and the data
// generator's draws (Compile). Every reader of key choosers (the spec's
// functions, the parameter drawer, the data generator, the write
// generators) asks this table, so a new distribution is one RegisterChooser
// call in a file of its own.
type Chooser struct {
	Kind GenKind
	Doc  string // the HCL function's description
	// Params are the numbers after the entity, in order.
	Params []ChooserParam
	// Args reads a generator's parameters in Params order, SetArgs writes
	// them; nil: Generator.Args.
	Args    func(g Generator) []float64
	SetArgs func(g *Generator, args []float64)
	// Compile makes the distribution from checked args, with key keying
	// any permutation and n0 the key count expected most often (>= 1).
	Compile func(args []float64, key uint64, n0 int64) Distribution
	// Uniform marks ref: the parameter drawer keeps its own uniform draw.
	Uniform bool
}

// ChooserParam is one number of a key chooser.
type ChooserParam struct {
	Name string
	// Default is taken when the spec omits it; only trailing parameters
	// have one. HasDefault says it is set.
	Default    float64
	HasDefault bool
	// Valid accepts a value; Want says what a refused one must be.
	Valid func(float64) bool
	Want  string
}

// Distribution draws one key of n (n >= 1). Implementations are read-only
// after Compile and safe for concurrent use.
type Distribution interface {
	// Draw returns an id in [0, n) from the uniforms of d.
	Draw(d Draws, n int64) int64
	// Hottest is the id drawn most often over n (any id when none is).
	Hottest(n int64) int64
}

var choosers struct {
	sync.RWMutex
	byKind map[GenKind]Chooser
	order  []GenKind
}

// RegisterChooser adds a key-chooser distribution. A kind registered twice
// is a programming error.
func RegisterChooser(c Chooser) {
	choosers.Lock()
	defer choosers.Unlock()
	if choosers.byKind == nil {
		choosers.byKind = map[GenKind]Chooser{}
	}
	if _, dup := choosers.byKind[c.Kind]; dup || c.Compile == nil {
		panic(fmt.Sprintf("datagen: key chooser %q registered twice or without Compile", c.Kind))
	}
	choosers.byKind[c.Kind] = c
	choosers.order = append(choosers.order, c.Kind)
}

// LookupChooser returns the key chooser of kind k.
func LookupChooser(k GenKind) (Chooser, bool) {
	choosers.RLock()
	defer choosers.RUnlock()
	c, ok := choosers.byKind[k]
	return c, ok
}

// Choosers lists the key choosers in registration order.
func Choosers() []Chooser {
	choosers.RLock()
	defer choosers.RUnlock()
	out := make([]Chooser, len(choosers.order))
	for i, k := range choosers.order {
		out[i] = choosers.byKind[k]
	}
	return out
}

// ChooserNames lists the key choosers' kinds, for messages: "ref, zipf, ...".
func ChooserNames() string {
	var names []string
	for _, c := range Choosers() {
		names = append(names, string(c.Kind))
	}
	return strings.Join(names, ", ")
}

// IsKeyChooser reports whether generators of kind k draw one entity of
// their Target: the kinds of the key chooser table.
func IsKeyChooser(k GenKind) bool {
	_, ok := LookupChooser(k)
	return ok
}

// ArgsOf is g's parameters in the order of its chooser's Params.
func (c Chooser) ArgsOf(g Generator) []float64 {
	if c.Args != nil {
		return c.Args(g)
	}
	return g.Args
}

// Generator is the generator of this chooser over entity with args.
func (c Chooser) Generator(entity string, args []float64) Generator {
	g := Generator{Kind: c.Kind, Target: entity}
	if c.SetArgs != nil {
		c.SetArgs(&g, args)
	} else {
		g.Args = append([]float64(nil), args...)
	}
	return g
}

// Check refuses args that are not one valid number per parameter, saying
// which parameter must be what.
func (c Chooser) Check(args []float64) error {
	if len(args) != len(c.Params) {
		return fmt.Errorf("%s takes %d numbers after the entity, got %d", c.Kind, len(c.Params), len(args))
	}
	for i, p := range c.Params {
		if p.Valid != nil && !p.Valid(args[i]) {
			return fmt.Errorf("%s %s %g %s", c.Kind, p.Name, args[i], p.Want)
		}
	}
	return nil
}

// String is g as the spec writes it: kind("entity", args...).
func (c Chooser) String(g Generator) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(%q", g.Kind, g.Target)
	for _, v := range c.ArgsOf(g) {
		b.WriteString(", ")
		b.WriteString(formatArg(v))
	}
	b.WriteString(")")
	return b.String()
}

func formatArg(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Exponent is a zipf exponent parameter: finite and > 0.
func Exponent(def float64, hasDefault bool) ChooserParam {
	return ChooserParam{Name: "exponent", Default: def, HasDefault: hasDefault,
		Valid: func(s float64) bool { return s > 0 && !math.IsInf(s, 0) }, Want: "must be positive and finite"}
}

// Fraction is a parameter in [0, 1].
func Fraction(name string) ChooserParam {
	return ChooserParam{Name: name, Valid: func(f float64) bool { return f >= 0 && f <= 1 }, Want: "must be in [0, 1]"}
}
