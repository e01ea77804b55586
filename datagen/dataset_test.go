package datagen

import (
	"testing"
	"time"
)

// scale mirrors the seed suite's scales.
type scale struct {
	name                  string
	users, labels, issues int64
}

var (
	scaleXS = scale{"xs", 200, 50, 13_000}
	scaleS  = scale{"s", 1_600, 200, 130_000}
	scaleM  = scale{"m", 16_000, 500, 1_300_000}
)

func ms(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}

// issueTracker is the seed suite's issue tracker. With extra it adds
// attributes of every class and generator and more histories (several on
// one attribute), an empty entity kind and text that needs CSV quoting.
func issueTracker(sc scale, extra bool) *Dataset {
	ds := &Dataset{
		Name:   "issues",
		Seed:   42,
		TxSize: 500,
		Entities: []Entity{
			{Name: "user", Count: sc.users, Attrs: []Attr{
				{Ident: "user/email", Type: TypeString, Unique: true, Gen: Generator{Kind: GenSeq, Format: "user%d@example.com"}},
				{Ident: "user/name", Type: TypeString, Gen: Generator{Kind: GenSeq, Format: "User %d"}},
			}},
			{Name: "label", Count: sc.labels, Attrs: []Attr{
				{Ident: "label/name", Type: TypeString, Unique: true, Gen: Generator{Kind: GenSeq, Format: "label-%d"}},
			}},
			{Name: "issue", Count: sc.issues, Attrs: []Attr{
				{Ident: "issue/title", Type: TypeString, Gen: Generator{Kind: GenSeq, Format: "Issue %d"}},
				{Ident: "issue/state", Type: TypeKeyword, Index: true, Gen: Generator{Kind: GenWeighted,
					Choices: []string{"closed", "in_progress", "open"}, Weights: []float64{3, 2, 5}}},
				{Ident: "issue/priority", Type: TypeLong, Gen: Generator{Kind: GenUniformInt, Min: 1, Max: 5}},
				{Ident: "issue/assignee", Type: TypeRef, Gen: Generator{Kind: GenZipf, Target: "user", S: 1.1}},
				{Ident: "issue/labels", Type: TypeRef, Many: true, Gen: Generator{Kind: GenSample, Target: "label", MinN: 0, MaxN: 3}},
				{Ident: "issue/created", Type: TypeInstant, Gen: Generator{Kind: GenInstant,
					Min: ms("2020-01-01T00:00:00Z"), Max: ms("2025-01-01T00:00:00Z")}},
			}},
		},
		History: []History{
			{Name: "state_changes", Entity: "issue", Attr: "issue/state", Fraction: 0.05, Files: 2},
		},
		Marks: []Mark{
			{Name: "t_mid", After: "initial"},
			{Name: "t_since", BeforeLast: "state_changes"},
		},
		Truth: []TruthDecl{
			{Name: "state_counts", Kind: TruthCountBy, Attr: "issue/state"},
			{Name: "label_counts", Kind: TruthCountBy, Attr: "issue/labels"},
			{Name: "open_high", Kind: TruthCount, Entity: "issue", Where: []Filter{
				{Attr: "issue/state", Op: "eq", Value: "open"}, {Attr: "issue/priority", Op: "ge", Value: "4"}}},
			{Name: "old_not_closed", Kind: TruthCount, Entity: "issue", Where: []Filter{
				{Attr: "issue/state", Op: "ne", Value: "closed"}, {Attr: "issue/created", Op: "lt", Value: "2022-01-01T00:00:00Z"}}},
			{Name: "issue_samples", Kind: TruthSample, Entity: "issue", N: 10, Attrs: []string{
				"issue/title", "issue/state", "issue/priority", "issue/assignee", "issue/labels", "issue/created"}},
			{Name: "issue_states_mid", Kind: TruthSample, Entity: "issue", N: 10, Attrs: []string{"issue/state"}, AsOf: "t_mid"},
			{Name: "user_samples", Kind: TruthSample, Entity: "user", N: 5, Attrs: []string{"user/email", "user/name"}},
			{Name: "assigned", Kind: TruthInverse, Entity: "user", N: 5, Attrs: []string{"user/email"},
				Inverse: "issue/assignee", RefAttrs: []string{"issue/title", "issue/state"}},
			{Name: "assigned_mid", Kind: TruthInverse, Entity: "user", N: 5, Inverse: "issue/assignee",
				RefAttrs: []string{"issue/state"}, AsOf: "t_mid"},
			{Name: "labelled", Kind: TruthInverse, Entity: "label", N: 3, Attrs: []string{"label/name"},
				Inverse: "issue/labels", RefAttrs: []string{"issue/title"}},
			{Name: "changed_since", Kind: TruthChangedSince, Attr: "issue/state", Since: "t_since"},
			{Name: "changed_since_mid", Kind: TruthChangedSince, Attr: "issue/state", Since: "t_mid"},
		},
	}
	if !extra {
		return ds
	}
	issue := &ds.Entities[2]
	issue.Attrs = append(issue.Attrs,
		Attr{Ident: "issue/score", Type: TypeDouble, Gen: Generator{Kind: GenUniformFloat, FMin: -1, FMax: 100}},
		Attr{Ident: "issue/flag", Type: TypeBoolean, Gen: Generator{Kind: GenChance, P: 0.3}},
		Attr{Ident: "issue/kind", Type: TypeKeyword, Gen: Generator{Kind: GenConst, Const: "bug"}},
		Attr{Ident: "issue/note", Type: TypeString, Gen: Generator{Kind: GenSeq, Format: `say "hi", 100%% #%d`}},
		Attr{Ident: "issue/reporter", Type: TypeRef, Gen: Generator{Kind: GenRef, Target: "user"}},
		Attr{Ident: "issue/weight", Type: TypeDouble, Gen: Generator{Kind: GenWeighted,
			Choices: []string{"0.5", "1", "2.25"}, Weights: []float64{1, 1, 1}}},
	)
	ds.Entities = append(ds.Entities, Entity{Name: "archive", Count: 0, Attrs: []Attr{
		{Ident: "archive/name", Type: TypeString, Gen: Generator{Kind: GenSeq, Format: "a%d"}},
	}})
	ds.History = append(ds.History,
		History{Name: "state_again", Entity: "issue", Attr: "issue/state", Fraction: 0.3, Files: 3, After: "state_changes"},
		History{Name: "priority_bump", Entity: "issue", Attr: "issue/priority", Fraction: 0.1, Files: 1},
		History{Name: "flag_flip", Entity: "issue", Attr: "issue/flag", Fraction: 0.2, Files: 4},
		History{Name: "reassign", Entity: "issue", Attr: "issue/assignee", Fraction: 0.15, Files: 2},
		History{Name: "state_third", Entity: "issue", Attr: "issue/state", Fraction: 1, Files: 1, After: "reassign"},
	)
	ds.Marks = append(ds.Marks,
		Mark{Name: "t_state", After: "state_changes"},
		Mark{Name: "t_reassign", BeforeLast: "reassign"},
	)
	ds.Truth = append(ds.Truth,
		TruthDecl{Name: "flag_counts", Kind: TruthCountBy, Attr: "issue/flag"},
		TruthDecl{Name: "weight_counts", Kind: TruthCountBy, Attr: "issue/weight"},
		TruthDecl{Name: "high_score", Kind: TruthCount, Entity: "issue", Where: []Filter{
			{Attr: "issue/score", Op: "gt", Value: "50.5"}, {Attr: "issue/flag", Op: "eq", Value: "true"}}},
		TruthDecl{Name: "labelled_7", Kind: TruthCount, Entity: "issue", Where: []Filter{
			{Attr: "issue/labels", Op: "eq", Value: "2000000000007"}}},
		TruthDecl{Name: "extra_samples", Kind: TruthSample, Entity: "issue", N: 7, AsOf: "t_state", Attrs: []string{
			"issue/score", "issue/flag", "issue/kind", "issue/note", "issue/state", "issue/priority", "issue/assignee"}},
		TruthDecl{Name: "reassigned_mid", Kind: TruthInverse, Entity: "user", N: 4, Inverse: "issue/assignee",
			RefAttrs: []string{"issue/state", "issue/flag", "issue/score"}, AsOf: "t_reassign"},
		TruthDecl{Name: "priority_changed", Kind: TruthChangedSince, Attr: "issue/priority", Since: "t_state"},
		TruthDecl{Name: "assignee_changed", Kind: TruthChangedSince, Attr: "issue/assignee", Since: "t_reassign"},
	)
	return ds
}

func finished(tb testing.TB, sc scale, extra bool) *Dataset {
	tb.Helper()
	ds := issueTracker(sc, extra)
	if err := ds.Finish(); err != nil {
		tb.Fatalf("Finish: %v", err)
	}
	return ds
}
