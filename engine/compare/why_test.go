package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

func TestWhyRendered(t *testing.T) {
	v := Verdict{Old: "a", New: "b", Method: MethodThreshold, Why: []Why{
		{What: "lookup sqlite xs clients=1 read", Moved: "p50 REGRESSION", Reasons: []string{"plan changed (q1): SEARCH u USING INDEX i (a=?) -> SCAN u", "work per call: full-scan steps 0 -> 1000"}},
		{What: "lookup sqlite xs clients=4 read", Moved: "ops/s improvement"},
	}}
	text := v.String()
	for _, want := range []string{
		"why lookup sqlite xs clients=1 read (p50 REGRESSION):\n  1. plan changed (q1): SEARCH u USING INDEX i (a=?) -> SCAN u\n  2. work per call",
		"why lookup sqlite xs clients=4 read (ops/s improvement):\n  no evidence moved\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	md := v.WhyMarkdown()
	for _, want := range []string{"### Why", "**lookup sqlite xs clients=1 read** (p50 REGRESSION)\n\n1. plan changed", "- no evidence moved"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	var h bytes.Buffer
	if err := HTML(v, &h); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="why"`, "SCAN u", "no evidence moved"} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("html lacks %q", want)
		}
	}
}

func TestMovedPoints(t *testing.T) {
	v := Verdict{
		Verdicts: []MetricVerdict{
			{What: "p1", Metric: KindP50, Outcome: OutRegression},
			{What: "p1", Metric: KindThroughput, Outcome: OutRegression},
			{What: "p2", Metric: KindP50, Outcome: OutSmall},
			{What: "p3", Metric: KindP99, Outcome: OutImprovement},
		},
		Findings: []Finding{{Kind: KindP50, What: "p1", Stat: &MetricVerdict{}}, {Kind: KindErrors, What: "p4"}, {Kind: KindMissing, What: "p5"}},
	}
	var got []string
	for _, w := range v.Moved() {
		got = append(got, w.What+":"+w.Moved)
	}
	want := "p1:p50 REGRESSION, throughput REGRESSION|p3:p99 improvement|p4:errors REGRESSION"
	if strings.Join(got, "|") != want {
		t.Fatalf("moved %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestVerdictMarkdown(t *testing.T) {
	v := Verdict{Old: "a", New: "b", Method: MethodThreshold,
		Findings: []Finding{{Kind: KindP50, What: "lookup sqlite xs clients=1 read", Old: 0.1, New: 1, Pct: 900}},
		Why:      []Why{{What: "lookup sqlite xs clients=1 read", Moved: "p50 REGRESSION", Reasons: []string{"plan changed (q1): SEARCH u USING INDEX i (a=?) -> SCAN u"}}}}
	md := v.Markdown()
	for _, want := range []string{"**compare: 1 regression**", "```text\ncompare a -> b", "REGRESSION lookup sqlite xs clients=1 read: p50", "### Why", "1. plan changed (q1)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestChangedFor(t *testing.T) {
	diffs := []Difference{
		{Key: "backend.postgres.l.setting.plan_cache_mode", Old: absent, New: "force_generic_plan"},
		{Key: "backend.postgres.m.setting.work_mem", Old: "64MB", New: "4MB"},
		{Key: "backend.sqlite.l.version", Old: "3.45.1", New: "3.46.0"},
		{Key: "var.avet", Old: "true", New: "false"},
		{Key: "spec_sha256", Old: "0123456789abcdef0123", New: "fedcba9876543210fedc"},
	}
	cases := []struct {
		key  results.Key
		want []string
	}{
		{results.Key{Backend: "postgres", Scale: "l"}, []string{
			"setting plan_cache_mode (absent) -> force_generic_plan", "var.avet true -> false", "spec_sha256 0123456789ab -> fedcba987654"}},
		{results.Key{Backend: "sqlite", Scale: "l"}, []string{
			"version 3.45.1 -> 3.46.0", "var.avet true -> false", "spec_sha256 0123456789ab -> fedcba987654"}},
		{results.Key{Backend: "duckdb", Scale: "xs"}, []string{"var.avet true -> false", "spec_sha256 0123456789ab -> fedcba987654"}},
	}
	for _, c := range cases {
		got := changedFor(diffs, c.key)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s %s: changed %q, want %q", c.key.Backend, c.key.Scale, got, c.want)
		}
	}
	if got := changedFor(nil, cases[0].key); got != nil {
		t.Errorf("no differences: changed %q", got)
	}
}

func TestChangedRendered(t *testing.T) {
	v := Verdict{Old: "a", New: "b", Method: MethodThreshold, Why: []Why{{What: "lookup postgres l clients=1 read", Moved: "p50 improvement",
		Changed: []string{"setting plan_cache_mode (absent) -> force_generic_plan"}, Reasons: []string{"planning 0.109 -> 0.000 ms per call"}}}}
	if text := v.String(); !strings.Contains(text, "why lookup postgres l clients=1 read (p50 improvement):\n  changed between the runs: setting plan_cache_mode (absent) -> force_generic_plan\n  1. planning") {
		t.Errorf("text:\n%s", text)
	}
	if md := v.WhyMarkdown(); !strings.Contains(md, "Changed between the runs: setting plan_cache_mode (absent) -> force_generic_plan\n\n1. planning") {
		t.Errorf("markdown:\n%s", md)
	}
	var h bytes.Buffer
	if err := HTML(v, &h); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.String(), "changed between the runs: setting plan_cache_mode") {
		t.Errorf("html lacks the change")
	}
}
