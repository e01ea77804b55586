// Package datagentest holds the datasets the tests of datagen and of the
// packages over it share: the seed suite's issue tracker at its scales and
// a delivery fleet with dependent entities and a process history, and the
// CPU-time reading their benchmarks report.
package datagentest

import (
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/datagen"
)

// Scale mirrors the seed suite's scales.
type Scale struct {
	Name                  string
	Users, Labels, Issues int64
}

// The scales of the seed suite.
var (
	ScaleXS = Scale{"xs", 200, 50, 13_000}
	ScaleS  = Scale{"s", 1_600, 200, 130_000}
	ScaleM  = Scale{"m", 16_000, 500, 1_300_000}
)

// Ms is an RFC 3339 instant in epoch milliseconds.
func Ms(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}

// IssueTracker is the seed suite's issue tracker. With extra it adds
// attributes of every class and generator and more histories (several on
// one attribute), an empty entity kind and text that needs CSV quoting.
func IssueTracker(sc Scale, extra bool) *datagen.Dataset {
	ds := &datagen.Dataset{
		Name:   "issues",
		Seed:   42,
		TxSize: 500,
		Entities: []datagen.Entity{
			{Name: "user", Count: sc.Users, Attrs: []datagen.Attr{
				{Ident: "user/email", Type: datagen.TypeString, Unique: true, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "user%d@example.com"}},
				{Ident: "user/name", Type: datagen.TypeString, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "User %d"}},
			}},
			{Name: "label", Count: sc.Labels, Attrs: []datagen.Attr{
				{Ident: "label/name", Type: datagen.TypeString, Unique: true, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "label-%d"}},
			}},
			{Name: "issue", Count: sc.Issues, Attrs: []datagen.Attr{
				{Ident: "issue/title", Type: datagen.TypeString, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "Issue %d"}},
				{Ident: "issue/state", Type: datagen.TypeKeyword, Index: true, Gen: datagen.Generator{Kind: datagen.GenWeighted,
					Choices: []string{"closed", "in_progress", "open"}, Weights: []float64{3, 2, 5}}},
				{Ident: "issue/priority", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenUniformInt, Min: 1, Max: 5}},
				{Ident: "issue/assignee", Type: datagen.TypeRef, Gen: datagen.Generator{Kind: datagen.GenZipf, Target: "user", S: 1.1}},
				{Ident: "issue/labels", Type: datagen.TypeRef, Many: true, Gen: datagen.Generator{Kind: datagen.GenSample, Target: "label", MinN: 0, MaxN: 3}},
				{Ident: "issue/created", Type: datagen.TypeInstant, Gen: datagen.Generator{Kind: datagen.GenInstant,
					Min: Ms("2020-01-01T00:00:00Z"), Max: Ms("2025-01-01T00:00:00Z")}},
			}},
		},
		History: []datagen.History{
			{Name: "state_changes", Entity: "issue", Attr: "issue/state", Fraction: 0.05, Files: 2},
		},
		Marks: []datagen.Mark{
			{Name: "t_mid", After: "initial"},
			{Name: "t_since", BeforeLast: "state_changes"},
		},
		Truth: []datagen.TruthDecl{
			{Name: "state_counts", Kind: datagen.TruthCountBy, Attr: "issue/state"},
			{Name: "label_counts", Kind: datagen.TruthCountBy, Attr: "issue/labels"},
			{Name: "open_high", Kind: datagen.TruthCount, Entity: "issue", Where: []datagen.Filter{
				{Attr: "issue/state", Op: "eq", Value: "open"}, {Attr: "issue/priority", Op: "ge", Value: "4"}}},
			{Name: "old_not_closed", Kind: datagen.TruthCount, Entity: "issue", Where: []datagen.Filter{
				{Attr: "issue/state", Op: "ne", Value: "closed"}, {Attr: "issue/created", Op: "lt", Value: "2022-01-01T00:00:00Z"}}},
			{Name: "issue_samples", Kind: datagen.TruthSample, Entity: "issue", N: 10, Attrs: []string{
				"issue/title", "issue/state", "issue/priority", "issue/assignee", "issue/labels", "issue/created"}},
			{Name: "issue_states_mid", Kind: datagen.TruthSample, Entity: "issue", N: 10, Attrs: []string{"issue/state"}, AsOf: "t_mid"},
			{Name: "user_samples", Kind: datagen.TruthSample, Entity: "user", N: 5, Attrs: []string{"user/email", "user/name"}},
			{Name: "assigned", Kind: datagen.TruthInverse, Entity: "user", N: 5, Attrs: []string{"user/email"},
				Inverse: "issue/assignee", RefAttrs: []string{"issue/title", "issue/state"}},
			{Name: "assigned_mid", Kind: datagen.TruthInverse, Entity: "user", N: 5, Inverse: "issue/assignee",
				RefAttrs: []string{"issue/state"}, AsOf: "t_mid"},
			{Name: "labelled", Kind: datagen.TruthInverse, Entity: "label", N: 3, Attrs: []string{"label/name"},
				Inverse: "issue/labels", RefAttrs: []string{"issue/title"}},
			{Name: "changed_since", Kind: datagen.TruthChangedSince, Attr: "issue/state", Since: "t_since"},
			{Name: "changed_since_mid", Kind: datagen.TruthChangedSince, Attr: "issue/state", Since: "t_mid"},
		},
	}
	if !extra {
		return ds
	}
	issue := &ds.Entities[2]
	issue.Attrs = append(issue.Attrs,
		datagen.Attr{Ident: "issue/score", Type: datagen.TypeDouble, Gen: datagen.Generator{Kind: datagen.GenUniformFloat, FMin: -1, FMax: 100}},
		datagen.Attr{Ident: "issue/flag", Type: datagen.TypeBoolean, Gen: datagen.Generator{Kind: datagen.GenChance, P: 0.3}},
		datagen.Attr{Ident: "issue/kind", Type: datagen.TypeKeyword, Gen: datagen.Generator{Kind: datagen.GenConst, Const: "bug"}},
		datagen.Attr{Ident: "issue/note", Type: datagen.TypeString, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: `say "hi", 100%% #%d`}},
		datagen.Attr{Ident: "issue/reporter", Type: datagen.TypeRef, Gen: datagen.Generator{Kind: datagen.GenRef, Target: "user"}},
		datagen.Attr{Ident: "issue/weight", Type: datagen.TypeDouble, Gen: datagen.Generator{Kind: datagen.GenWeighted,
			Choices: []string{"0.5", "1", "2.25"}, Weights: []float64{1, 1, 1}}},
	)
	ds.Entities = append(ds.Entities, datagen.Entity{Name: "archive", Count: 0, Attrs: []datagen.Attr{
		{Ident: "archive/name", Type: datagen.TypeString, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "a%d"}},
	}})
	ds.History = append(ds.History,
		datagen.History{Name: "state_again", Entity: "issue", Attr: "issue/state", Fraction: 0.3, Files: 3, After: "state_changes"},
		datagen.History{Name: "priority_bump", Entity: "issue", Attr: "issue/priority", Fraction: 0.1, Files: 1},
		datagen.History{Name: "flag_flip", Entity: "issue", Attr: "issue/flag", Fraction: 0.2, Files: 4},
		datagen.History{Name: "reassign", Entity: "issue", Attr: "issue/assignee", Fraction: 0.15, Files: 2},
		datagen.History{Name: "state_third", Entity: "issue", Attr: "issue/state", Fraction: 1, Files: 1, After: "reassign"},
	)
	ds.Marks = append(ds.Marks,
		datagen.Mark{Name: "t_state", After: "state_changes"},
		datagen.Mark{Name: "t_reassign", BeforeLast: "reassign"},
	)
	ds.Truth = append(ds.Truth,
		datagen.TruthDecl{Name: "flag_counts", Kind: datagen.TruthCountBy, Attr: "issue/flag"},
		datagen.TruthDecl{Name: "weight_counts", Kind: datagen.TruthCountBy, Attr: "issue/weight"},
		datagen.TruthDecl{Name: "high_score", Kind: datagen.TruthCount, Entity: "issue", Where: []datagen.Filter{
			{Attr: "issue/score", Op: "gt", Value: "50.5"}, {Attr: "issue/flag", Op: "eq", Value: "true"}}},
		datagen.TruthDecl{Name: "labelled_7", Kind: datagen.TruthCount, Entity: "issue", Where: []datagen.Filter{
			{Attr: "issue/labels", Op: "eq", Value: "2000000000007"}}},
		datagen.TruthDecl{Name: "extra_samples", Kind: datagen.TruthSample, Entity: "issue", N: 7, AsOf: "t_state", Attrs: []string{
			"issue/score", "issue/flag", "issue/kind", "issue/note", "issue/state", "issue/priority", "issue/assignee"}},
		datagen.TruthDecl{Name: "reassigned_mid", Kind: datagen.TruthInverse, Entity: "user", N: 4, Inverse: "issue/assignee",
			RefAttrs: []string{"issue/state", "issue/flag", "issue/score"}, AsOf: "t_reassign"},
		datagen.TruthDecl{Name: "priority_changed", Kind: datagen.TruthChangedSince, Attr: "issue/priority", Since: "t_state"},
		datagen.TruthDecl{Name: "assignee_changed", Kind: datagen.TruthChangedSince, Attr: "issue/assignee", Since: "t_reassign"},
	)
	return ds
}

// Finished is IssueTracker(sc, extra), Finish()ed.
func Finished(tb testing.TB, sc Scale, extra bool) *datagen.Dataset {
	tb.Helper()
	ds := IssueTracker(sc, extra)
	if err := ds.Finish(); err != nil {
		tb.Fatalf("Finish: %v", err)
	}
	return ds
}

// Hour is an hour in milliseconds.
const Hour = int64(3600 * 1000)

// Fleet is a delivery fleet: vans with a dependent number of routes,
// routes with a dependent number of stops, a process history with a
// time attribute, a generator history and a second one ordered after it,
// derived (offset) instants and zero-padded codes.
func Fleet(vans int64) *datagen.Dataset {
	return &datagen.Dataset{
		Name: "fleet", Seed: 7, TxSize: 100,
		Entities: []datagen.Entity{
			{Name: "depot", Count: 5, Attrs: []datagen.Attr{
				{Ident: "depot/code", Type: datagen.TypeString, Unique: true, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "DEP-%03d"}},
				{Ident: "depot/city", Type: datagen.TypeKeyword, Gen: datagen.Generator{Kind: datagen.GenWeighted, Choices: []string{"lille", "lyon"}, Weights: []float64{1, 2}}},
			}},
			{Name: "van", Count: vans, Attrs: []datagen.Attr{
				{Ident: "van/plate", Type: datagen.TypeString, Unique: true, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "VAN-%05d"}},
				{Ident: "van/depot", Type: datagen.TypeRef, Gen: datagen.Generator{Kind: datagen.GenRef, Target: "depot"}},
				{Ident: "van/capacity", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenUniformInt, Min: 50, Max: 200}},
			}},
			{Name: "route", Parent: "van", PerParent: datagen.Generator{Kind: datagen.GenUniformInt, Min: 0, Max: 4}, Attrs: []datagen.Attr{
				{Ident: "route/van", Type: datagen.TypeRef, Gen: datagen.Generator{Kind: datagen.GenParent}},
				{Ident: "route/day", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenOrdinal}},
				{Ident: "route/starts", Type: datagen.TypeInstant, Gen: datagen.Generator{Kind: datagen.GenInstant, Min: Ms("2025-01-01T00:00:00Z"), Max: Ms("2025-07-01T00:00:00Z")}},
				{Ident: "route/planned_end", Type: datagen.TypeInstant, Gen: datagen.Generator{Kind: datagen.GenOffset, Source: "route/starts", Min: 2 * Hour, Max: 9 * Hour}},
				{Ident: "route/status", Type: datagen.TypeKeyword, Gen: datagen.Generator{Kind: datagen.GenWeighted, Choices: []string{"cancelled", "planned"}, Weights: []float64{1, 9}}},
				{Ident: "route/updated", Type: datagen.TypeInstant, Gen: datagen.Generator{Kind: datagen.GenOffset, Source: "route/starts", Min: 0, Max: Hour}},
			}},
			{Name: "stop", Parent: "route", PerParent: datagen.Generator{Kind: datagen.GenWeighted, Choices: []string{"2", "5"}, Weights: []float64{1, 1}}, Attrs: []datagen.Attr{
				{Ident: "stop/route", Type: datagen.TypeRef, Gen: datagen.Generator{Kind: datagen.GenParent}},
				{Ident: "stop/seq", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenOrdinal}},
				{Ident: "stop/parcels", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenUniformInt, Min: 1, Max: 20}},
			}},
		},
		History: []datagen.History{
			{Name: "progress", Entity: "route", Attr: "route/status", States: []string{"planned", "dispatched", "completed"},
				Fractions: []float64{0.8, 0.5}, Files: 3, Time: "route/updated", DelayMin: Hour / 2, DelayMax: 10 * Hour},
			{Name: "recount", Entity: "stop", Attr: "stop/parcels", Fraction: 0.2, Files: 2, Gen: &datagen.Generator{Kind: datagen.GenUniformInt, Min: 0, Max: 30}},
			{Name: "recount_again", Entity: "stop", Attr: "stop/parcels", Fraction: 0.1, Files: 1, After: "recount"},
		},
		Marks: []datagen.Mark{{Name: "loaded", After: "initial"}, {Name: "late", BeforeLast: "progress"}},
		Truth: []datagen.TruthDecl{
			{Name: "changed", Kind: datagen.TruthChangedSince, Attr: "route/status", Since: "late"},
			{Name: "busy", Kind: datagen.TruthCount, Entity: "route", Where: []datagen.Filter{
				{Attr: "route/starts", Op: "between", Values: []string{"2025-02-01T00:00:00Z", "2025-04-01T00:00:00Z"}},
				{Op: "or", Any: []datagen.Filter{{Attr: "route/status", Op: "eq", Value: "completed"}, {Attr: "route/van.van/capacity", Op: "ge", Value: "150"}}},
			}},
			{Name: "stops_in", Kind: datagen.TruthCount, Entity: "stop", Where: []datagen.Filter{{Attr: "stop/seq", Op: "in", Values: []string{"1", "5"}}}},
			{Name: "parcels_by_city", Kind: datagen.TruthSum, Attr: "stop/parcels", By: "stop/route.route/van.van/depot.depot/city"},
			{Name: "avg_capacity", Kind: datagen.TruthAvg, Attr: "van/capacity"},
			{Name: "last_end", Kind: datagen.TruthMax, Attr: "route/planned_end"},
			{Name: "routes", Kind: datagen.TruthSample, Entity: "route", N: 5, Attrs: []string{"route/day", "route/van.van/plate"}, Key: "route/van.van/plate"},
		},
	}
}

// FinishedFleet is Fleet(vans), Finish()ed.
func FinishedFleet(t testing.TB, vans int64) *datagen.Dataset {
	t.Helper()
	ds := Fleet(vans)
	if err := ds.Finish(); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	return ds
}
