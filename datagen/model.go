// Package datagen compiles a dataset definition and generates its
// deterministic datom streams. Every value is a pure function of (seed,
// entity kind, attribute, id, version), so any range of transactions can
// be generated alone, in parallel, and the value of one id needs no stored
// data. The packages over it build on that: truth (the answers the data
// gives, for checks), writes (write generators after the load) and export
// (the data as files). The package knows nothing about HCL or databases.
package datagen

// ValueType is an attribute's declared value type (mentat's :db/valueType).
type ValueType string

const (
	TypeString  ValueType = "string"
	TypeKeyword ValueType = "keyword"
	TypeLong    ValueType = "long"
	TypeDouble  ValueType = "double"
	TypeBoolean ValueType = "boolean"
	TypeInstant ValueType = "instant" // stored as epoch milliseconds
	TypeRef     ValueType = "ref"     // stored as the target entity id
)

// Class is the storage class a value type maps to: which column type (and
// so which datom table) holds it.
type Class int

const (
	ClassText Class = iota // string, keyword
	ClassInt               // long, ref, instant, boolean (0/1)
	ClassReal              // double
)

// ClassNames are the names used in specs and file names, indexed by Class.
var ClassNames = [...]string{"text", "int", "real"}

// Value is one typed datom value. Exactly one of Int, Float, Str is
// meaningful, chosen by the storage class of Type.
type Value struct {
	Type  ValueType
	Int   int64
	Float float64
	Str   string
}

// Datom is one (e, a, v, tx, added) fact.
type Datom struct {
	E     int64
	A     int32
	V     Value
	Tx    int64
	Added bool
}

// Tx is one generated transaction. Datoms is reused between callbacks of a
// stream: copy what must outlive the callback.
type Tx struct {
	Index  int64  // position in the whole stream, 0-based
	ID     int64  // the tx id written in datoms
	Phase  string // "initial" or a history name
	File   int    // history file number (0 for initial)
	Datoms []Datom
}

// GenKind names a value generator.
type GenKind string

const (
	GenSeq          GenKind = "seq"           // Format with %d replaced by the id
	GenUniformInt   GenKind = "uniform"       // integer in [Min, Max]
	GenUniformFloat GenKind = "uniform_float" // float in [FMin, FMax)
	GenWeighted     GenKind = "weighted"      // one of Choices with Weights
	GenRef          GenKind = "ref"           // uniform entity of kind Target
	GenZipf         GenKind = "zipf"          // entity of kind Target, zipf(S) over ids (id 0 hottest)
	GenSample       GenKind = "sample"        // MinN..MaxN distinct entities of kind Target (cardinality many)
	GenInstant      GenKind = "instant"       // epoch ms uniform in [Min, Max]
	GenConst        GenKind = "const"         // Const
	GenChance       GenKind = "chance"        // boolean true with probability P
	GenParent       GenKind = "parent"        // ref to the entity's parent (an entity with Parent set)
	GenOrdinal      GenKind = "ordinal"       // 1-based position among the parent's children (long)
	GenOffset       GenKind = "offset"        // Source's initial value plus a whole number uniform in [Min, Max]
	GenRandomBytes  GenKind = "random_bytes"  // Length random printable bytes (the base64url alphabet)

	// Key choosers beside ref and zipf (keys.go): one entity of Target.

	// GenScrambledZipf: a zipf(S) rank mapped through a keyed permutation
	// of the ids, so the hot entities spread over the id space.
	GenScrambledZipf GenKind = "scrambled_zipf"
	// GenLatest: the last id minus a zipf(S) rank, the newest entity
	// hottest (YCSB's SkewedLatestGenerator).
	GenLatest GenKind = "latest"
	// GenHotspot: a HotOp fraction of the draws go uniformly to the
	// HotData fraction of lowest ids, the rest uniformly to the other ids
	// (YCSB's HotspotIntegerGenerator).
	GenHotspot GenKind = "hotspot"
)

// Generator describes how an attribute's values are made. Only the fields
// its Kind uses are set.
type Generator struct {
	Kind       GenKind
	Format     string    // seq: one %d, or %0Nd for zero padding to N digits
	Source     string    // offset: an attribute of the same entity (long or instant)
	Min, Max   int64     // uniform, instant
	FMin, FMax float64   // uniform_float
	Choices    []string  // weighted (sorted; parsed to the attribute's type)
	Weights    []float64 // weighted, same order as Choices
	Target     string    // ref, zipf, sample, scrambled_zipf, latest, hotspot: entity kind
	S          float64   // zipf, scrambled_zipf, latest exponent (> 0)
	HotData    float64   // hotspot: fraction of the ids that are hot, in [0, 1]
	HotOp      float64   // hotspot: fraction of the draws that go to them, in [0, 1]
	// Args are the numbers of a key chooser registered without fields of
	// its own (choosers.go); omitted when empty so fingerprints stay.
	Args       []float64 `json:",omitempty"`
	Length     int       // random_bytes: bytes per value
	MinN, MaxN int       // sample
	P          float64   // chance
	Const      string    // const, parsed to the attribute's type
}

// Attr is one attribute of an entity kind.
type Attr struct {
	Ident  string // e.g. "user/email"
	ID     int32  // the attribute id used in datoms (assigned by Dataset.Finish)
	Type   ValueType
	Unique bool
	Index  bool
	Many   bool
	Gen    Generator
}

// Entity is a kind of entity with Count instances (ids 0..Count-1).
// A dependent entity sets Parent instead: each parent entity has
// PerParent children (a uniform or weighted whole-number generator drawn
// per parent id), numbered in parent order, and Count is their total.
type Entity struct {
	Name      string
	Count     int64
	Parent    string
	PerParent Generator
	Attrs     []Attr
}

// History is a phase after the initial load in which a Fraction of the
// entities of one kind get one new value of a cardinality-one attribute
// (a retract of the old value and an assert of the new), split into Files.
//
// The new value is a redraw of the attribute's generator, or a draw of
// Gen when set. A process (States set) instead moves the attribute
// through ordered states in steps: step j moves a fraction Fractions[j]
// of the entities whose value is States[j] to States[j+1]; each step has
// its own Files. Time, when set, names an instant attribute of the same
// entity that every change advances by a whole number of milliseconds
// uniform in [DelayMin, DelayMax]. A history changing an attribute an
// earlier history changes must name that order in After.
type History struct {
	Name      string
	Entity    string
	Attr      string
	Fraction  float64
	Files     int
	Gen       *Generator
	States    []string
	Fractions []float64
	Time      string
	DelayMin  int64
	DelayMax  int64
	After     string
}

// Mark names a transaction id that scenarios and truth can refer to.
// Exactly one of After and BeforeLast is set.
type Mark struct {
	Name       string
	After      string // "initial" or a history name: the last tx of that phase
	BeforeLast string // a history name: the last tx before its final file
}

// Filter restricts the entities a truth counts or aggregates. Op is one
// of eq, ne, lt, le, gt, ge (Value), between (Values: low and high,
// inclusive), in (Values) or or (Any: at least one holds). Values are
// parsed to the attribute's type. Attr is an attribute path: idents
// joined by "." follow refs ("line/product.product/sku").
type Filter struct {
	Attr   string
	Op     string
	Value  string
	Values []string
	Any    []Filter
}

// TruthKind names what a truth declaration computes.
type TruthKind string

const (
	// TruthCountBy: number of entities per current value of Attr
	// (map value -> count).
	TruthCountBy TruthKind = "count_by"
	// TruthCount: number of entities of Entity matching all Where filters.
	TruthCount TruthKind = "count"
	// TruthSample: N seeded sample entities of Entity, each with its id, e
	// and the values of Attrs (current, or as of AsOf).
	TruthSample TruthKind = "sample"
	// TruthInverse: N seeded sample entities of Entity with, for each, the
	// entities whose ref attribute Inverse points at it, with their Attrs.
	TruthInverse TruthKind = "inverse"
	// TruthChangedSince: number of distinct entities whose Attr changed in a
	// transaction after mark Since.
	TruthChangedSince TruthKind = "changed_since"
	// TruthSum, TruthAvg, TruthMin, TruthMax: an aggregate of the current
	// values of Attr over the entities of its kind matching Where; grouped
	// by the value of By when set (map value -> aggregate).
	TruthSum TruthKind = "sum"
	TruthAvg TruthKind = "avg"
	TruthMin TruthKind = "min"
	TruthMax TruthKind = "max"
)

// IDsKey is the key of Truth.Values holding the id set of every counting
// truth (count, count_by, changed_since) by name; no truth may take it.
const IDsKey = "ids"

// PathSep separates the hops of an attribute path.
const PathSep = "."

// TruthDecl declares one expected answer to compute.
type TruthDecl struct {
	Name    string
	Kind    TruthKind
	Entity  string   // count, sample, inverse
	Attr    string   // count_by, changed_since, aggregates (a path)
	By      string   // aggregates: group by this path's value
	Key     string   // sample, inverse: the attribute (path) labelling each entry
	Where   []Filter // count, count_by, aggregates
	N       int      // sample, inverse: how many sample entities
	Attrs   []string // sample, inverse: attribute values of each sample entity to record
	Inverse string   // inverse: the ref attribute (on another kind) pointing at the samples
	// RefAttrs (inverse): attribute values to record for each referring entity.
	RefAttrs []string
	AsOf     string // sample, inverse: a mark; values as of that tx
	Since    string // changed_since: a mark
}

// Dataset is a fully resolved dataset definition for one scale.
type Dataset struct {
	Name     string
	Seed     uint64
	TxSize   int // entities per transaction (initial) / candidate entities per tx (history)
	Entities []Entity
	History  []History
	Marks    []Mark
	Truth    []TruthDecl // checked and computed by package truth

	c     *compiled // set by Finish
	draft *compiled // what a failed Finish compiled, for Draft
}
